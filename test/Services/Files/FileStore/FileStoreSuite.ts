import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { assert, layer } from "@effect/vitest"
import { Data, Deferred, Effect, Exit, Fiber, type Layer, Stream } from "effect"
import { FileStore } from "../../../../src/Services/Files/FileStore.ts"
import {
  chunked,
  collect,
  digest,
  eventually,
  fixturesDir,
  generated,
  manifest,
  MiB,
  outcome,
  sha256,
  StoreInspector,
  uniqueKey
} from "./FileStoreSupport.ts"

class ClientGone extends Data.TaggedError("ClientGone")<{}> {}

const escapingKeys = [
  "",
  "../escape",
  "proj/../../escape",
  "proj/..",
  "/etc/passwd",
  "proj//file",
  "proj/./file",
  "proj/file/",
  "./proj",
  "proj/.hidden",
  "proj\\..\\..\\escape",
  "..%2f..%2fescape",
  "proj/fi le",
  "proj/\u0000file",
  `proj/${"x".repeat(300)}`
]

/**
 * The contract every FileStore layer must meet. `storeLayer` provides the store and an inspector
 * that looks at the backend directly, so "nothing left behind" is checked from outside.
 */
export const fileStoreSuite = <E>(name: string, storeLayer: Layer.Layer<FileStore | StoreInspector, E>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: "60 seconds" })(name, (it) => {
    it.effect("round-trips every fixture file byte for byte, with its size, hash and content type", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        assert.isAbove(manifest.files.length, 0)
        for (const file of manifest.files) {
          const data = readFileSync(NodePath.join(fixturesDir, file.path))
          const key = uniqueKey(NodePath.basename(file.path))
          const stored = yield* store.put(key, chunked(data, 7919), { maxBytes: file.size_bytes, contentType: file.mime })
          assert.deepStrictEqual(stored, { bytes: file.size_bytes, sha256: file.sha256 }, file.path)
          const got = yield* store.get(key)
          assert.strictEqual(got.bytes, file.size_bytes, file.path)
          assert.strictEqual(got.contentType, file.mime, file.path)
          const back = yield* collect(got.stream)
          assert.strictEqual(sha256(back), file.sha256, file.path)
          assert.isTrue(back.equals(data), file.path)
        }
      })
    )

    it.effect("streams a multi-megabyte object larger than one multipart part", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const size = 12 * MiB + 12_345
        const content = generated(size, 0xc0ffee, 256 * 1024 + 7)
        const key = uniqueKey("big")
        const stored = yield* store.put(key, content.stream, { maxBytes: size, contentType: "application/octet-stream" })
        const expected = content.expectedSha256()
        assert.deepStrictEqual(stored, { bytes: size, sha256: expected })
        const got = yield* store.get(key)
        assert.strictEqual(got.bytes, size)
        assert.deepStrictEqual(yield* digest(got.stream), { bytes: size, sha256: expected })
      })
    )

    it.effect("a reader may stop early, and the object stays readable", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const size = 2 * MiB
        const content = generated(size, 0xbeef)
        const key = uniqueKey("partial")
        yield* store.put(key, content.stream, { maxBytes: size, contentType: "application/octet-stream" })
        // More early stops than the S3 client has sockets: a leaked connection per stop would hang here.
        for (let i = 0; i < 300; i++) {
          const first = yield* Stream.runCollect(Stream.take((yield* store.get(key)).stream, 1))
          assert.strictEqual(first.length, 1)
        }
        assert.deepStrictEqual(yield* digest((yield* store.get(key)).stream), { bytes: size, sha256: content.expectedSha256() })
      })
    )

    it.effect("accepts exactly maxBytes and refuses one byte more", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const data = readFileSync(NodePath.join(fixturesDir, manifest.files[0]!.path))
        const key = uniqueKey("limit")
        assert.strictEqual(
          yield* outcome(store.put(key, chunked(data, 10), { maxBytes: data.byteLength - 1, contentType: "text/plain" })),
          "PayloadTooLarge"
        )
        assert.isFalse(yield* store.exists(key))
        assert.strictEqual(
          yield* outcome(store.put(key, chunked(data, 10), { maxBytes: data.byteLength, contentType: "text/plain" })),
          "succeeded"
        )
        assert.isTrue(yield* store.exists(key))
      })
    )

    it.effect("a maxBytes breach answers 413, stops reading and leaves nothing behind", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        const endless = generated(Number.POSITIVE_INFINITY, 7)
        const key = uniqueKey("breach")
        const maxBytes = 7 * MiB + 3
        const error = yield* Effect.flip(store.put(key, endless.stream, { maxBytes, contentType: "video/mp4" }))
        assert.strictEqual(error._tag, "GatewayError")
        assert.strictEqual(error.reason._tag, "PayloadTooLarge")
        assert.include(error.reason.message, String(maxBytes))
        // The 8th 1 MiB chunk crosses the limit; reading an endless stream further would never end.
        assert.isAtMost(endless.stats.pulled, 9)
        assert.deepStrictEqual(yield* inspector.traces(key), [])
        assert.strictEqual(yield* outcome(store.get(key)), "NotFound")
      })
    )

    it.effect("a failed upload keeps the object that was there before", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        const key = uniqueKey("keep")
        const first = generated(1000, 11)
        yield* store.put(key, first.stream, { maxBytes: 1000, contentType: "text/plain" })
        const second = generated(8 * MiB, 12)
        assert.strictEqual(
          yield* outcome(store.put(key, second.stream, { maxBytes: 6 * MiB, contentType: "text/csv" })),
          "PayloadTooLarge"
        )
        const got = yield* store.get(key)
        assert.strictEqual(got.contentType, "text/plain")
        assert.deepStrictEqual(yield* digest(got.stream), { bytes: 1000, sha256: first.expectedSha256() })
        assert.strictEqual((yield* inspector.traces(key)).length, 1)
      })
    )

    it.effect("a failing content stream fails the put with its own error and leaves nothing", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        const key = uniqueKey("failing")
        const content = Stream.concat(generated(6 * MiB, 5).stream, Stream.fail(new ClientGone()))
        const error = yield* Effect.flip(store.put(key, content, { maxBytes: 100 * MiB, contentType: "text/plain" }))
        assert.strictEqual(error._tag, "ClientGone")
        assert.deepStrictEqual(yield* inspector.traces(key), [])
      })
    )

    it.effect("an interrupted upload (client disconnect) leaves nothing behind", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        const key = uniqueKey("interrupted")
        const reached = yield* Deferred.make<void>()
        const content = Stream.concat(
          generated(6 * MiB, 3).stream,
          Stream.unwrap(Effect.as(Deferred.succeed(reached, undefined), Stream.never))
        )
        const fiber = yield* Effect.forkChild(store.put(key, content, { maxBytes: 100 * MiB, contentType: "text/plain" }))
        yield* Deferred.await(reached)
        if (inspector.stagesUploads) {
          // Proves the check below is not vacuous: the partial upload was really there.
          assert.isTrue(yield* eventually(Effect.map(inspector.traces(key), (t) => t.length > 0)))
        }
        yield* Fiber.interrupt(fiber)
        assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
        assert.deepStrictEqual(yield* inspector.traces(key), [])
        assert.isFalse(yield* store.exists(key))
      })
    )

    it.effect("get of a missing key is NotFound", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const key = uniqueKey("missing")
        assert.strictEqual(yield* outcome(store.get(key)), "NotFound")
        assert.isFalse(yield* store.exists(key))
      })
    )

    it.effect("delete is idempotent", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        const key = uniqueKey("delete")
        yield* store.delete(key)
        yield* store.put(key, generated(2048, 9).stream, { maxBytes: 2048, contentType: "text/plain" })
        assert.isTrue(yield* store.exists(key))
        yield* store.delete(key)
        yield* store.delete(key)
        assert.isFalse(yield* store.exists(key))
        assert.strictEqual(yield* outcome(store.get(key)), "NotFound")
        assert.deepStrictEqual(yield* inspector.traces(key), [])
      })
    )

    it.effect("a stream obtained before a delete or a replacement fails with NotFound", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const key = uniqueKey("stale")
        yield* store.put(key, generated(4096, 1).stream, { maxBytes: 4096, contentType: "text/plain" })
        const beforeReplace = yield* store.get(key)
        const second = generated(4096, 2)
        yield* store.put(key, second.stream, { maxBytes: 4096, contentType: "text/plain" })
        assert.strictEqual(yield* outcome(Stream.runDrain(beforeReplace.stream)), "NotFound")
        assert.deepStrictEqual(yield* digest((yield* store.get(key)).stream), { bytes: 4096, sha256: second.expectedSha256() })

        const beforeDelete = yield* store.get(key)
        yield* store.delete(key)
        assert.strictEqual(yield* outcome(Stream.runDrain(beforeDelete.stream)), "NotFound")
      })
    )

    it.effect("concurrent uploads to one key leave exactly one complete object", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        const key = uniqueKey("race")
        const a = generated(6 * MiB, 21, 64 * 1024)
        const b = generated(6 * MiB, 22, 64 * 1024)
        yield* Effect.all(
          [a, b].map((c) => store.put(key, c.stream, { maxBytes: 6 * MiB, contentType: "text/plain" })),
          { concurrency: 2 }
        )
        const { sha256: stored } = yield* digest((yield* store.get(key)).stream)
        assert.include([a.expectedSha256(), b.expectedSha256()], stored)
        assert.strictEqual((yield* inspector.traces(key)).length, 1)
      })
    )

    it.effect("refuses a content type that cannot be stored as a header", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        const inspector = yield* StoreInspector
        for (const contentType of ["", "text/plain; name=\u00fcber", "text/plain\r\nx-injected: 1", `text/${"x".repeat(300)}`]) {
          const key = uniqueKey("ctype")
          const put = store.put(key, generated(10, 1).stream, { maxBytes: 10, contentType })
          assert.strictEqual(yield* outcome(put), "InvalidRequest", JSON.stringify(contentType.slice(0, 30)))
          assert.deepStrictEqual(yield* inspector.traces(key), [])
        }
      })
    )

    it.effect("rejects keys that could escape the store, on every method", () =>
      Effect.gen(function* () {
        const store = yield* FileStore
        for (const key of escapingKeys) {
          const label = JSON.stringify(key.slice(0, 40))
          const data = new TextEncoder().encode("escape attempt")
          const error = yield* Effect.flip(store.put(key, Stream.make(data), { maxBytes: 100, contentType: "text/plain" }))
          assert.strictEqual(error.reason._tag, "InvalidRequest", label)
          assert.strictEqual(yield* outcome(store.get(key)), "InvalidRequest", label)
          assert.strictEqual(yield* outcome(store.exists(key)), "InvalidRequest", label)
          assert.strictEqual(yield* outcome(store.delete(key)), "InvalidRequest", label)
        }
      })
    )
  })
