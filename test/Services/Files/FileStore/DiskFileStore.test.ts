import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import * as Fs from "node:fs/promises"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { FileStore } from "../../../../src/Services/Files/FileStore.ts"
import { eventually, generated, sha256, StoreInspector, uniqueKey } from "./FileStoreSupport.ts"
import { fileStoreSuite } from "./FileStoreSuite.ts"

/** Every file below `root`, as paths relative to it. */
const walk = (root: string) =>
  Effect.promise(async () => {
    const entries = await Fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])
    return entries.filter((e) => e.isFile()).map((e) => NodePath.relative(root, NodePath.join(e.parentPath, e.name)))
  })

class DiskRoot extends Context.Service<DiskRoot, { readonly parent: string; readonly root: string }>()("test/DiskRoot") {}

/** A disk store in `<fresh temp dir>/store`, so anything written beside the root would show. */
const DiskLive = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(NodePath.join(tmpdir(), "gw-files-"))),
    (parent) => Effect.sync(() => rmSync(parent, { recursive: true, force: true }))
  ).pipe(
    Effect.map((parent) => {
      const root = NodePath.join(parent, "store")
      const inspector = Layer.succeed(
        StoreInspector,
        StoreInspector.of({
          stagesUploads: true,
          traces: (key) => {
            const name = NodePath.basename(key)
            return Effect.map(walk(root), (files) => files.filter((file) => NodePath.basename(file).includes(name)))
          }
        })
      )
      return Layer.mergeAll(FileStore.layerDisk(root), inspector, Layer.succeed(DiskRoot, DiskRoot.of({ parent, root })))
    })
  )
)

fileStoreSuite("FileStore.layerDisk", DiskLive)

layer(DiskLive, { excludeTestServices: true })("FileStore.layerDisk on disk", (it) => {
  it.effect("stores a key as the file <root>/<key> whose content starts with the uploaded bytes", () =>
    Effect.gen(function* () {
      const store = yield* FileStore
      const { root } = yield* DiskRoot
      const key = uniqueKey("layout")
      const content = generated(5000, 77)
      yield* store.put(key, content.stream, { maxBytes: 5000, contentType: "text/plain" })
      const onDisk = yield* Effect.promise(() => Fs.readFile(NodePath.join(root, key)))
      assert.strictEqual(sha256(onDisk.subarray(0, 5000)), content.expectedSha256())
      assert.deepStrictEqual(yield* walk(NodePath.join(root, NodePath.dirname(key))).pipe(
        Effect.map((files) => files.filter((f) => f.startsWith(".")))
      ), [])
    })
  )

  it.effect("escaping keys create nothing anywhere on disk", () =>
    Effect.gen(function* () {
      const store = yield* FileStore
      const { parent, root } = yield* DiskRoot
      const before = yield* walk(parent)
      for (const key of ["../outside", "x/../../outside", "/tmp/outside", "..", "x/../.."]) {
        yield* Effect.ignore(store.put(key, Stream.make(new Uint8Array([1, 2, 3])), { maxBytes: 10, contentType: "text/plain" }))
        yield* Effect.ignore(store.delete(key))
      }
      assert.deepStrictEqual(yield* walk(parent), before)
      assert.deepStrictEqual(readdirSync(parent), ["store"])
      assert.isTrue(before.every((file) => !file.includes("outside")) && root.endsWith("store"))
    })
  )
})

describe("FileStore.layerDisk start-up", () => {
  it.live("removes temporary files a crash left behind and keeps recent ones", () =>
    Effect.gen(function* () {
      const parent = mkdtempSync(NodePath.join(tmpdir(), "gw-files-"))
      const dir = NodePath.join(parent, "proj_a")
      yield* Effect.promise(() => Fs.mkdir(dir, { recursive: true }))
      const stale = NodePath.join(dir, `.file-1.${randomUUID()}.tmp`)
      const recent = NodePath.join(dir, `.file-2.${randomUUID()}.tmp`)
      const lookalike = NodePath.join(dir, "file-3.tmp")
      for (const path of [stale, recent, lookalike]) writeFileSync(path, "partial")
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000)
      utimesSync(stale, twoDaysAgo, twoDaysAgo)
      utimesSync(lookalike, twoDaysAgo, twoDaysAgo)
      yield* Effect.gen(function* () {
        yield* FileStore
        const gone = yield* eventually(Effect.map(walk(parent), (files) => !files.includes(NodePath.relative(parent, stale))))
        assert.isTrue(gone)
      }).pipe(Effect.provide(FileStore.layerDisk(parent)))
      assert.deepStrictEqual((yield* walk(parent)).sort(), [recent, lookalike].map((p) => NodePath.relative(parent, p)).sort())
      rmSync(parent, { recursive: true, force: true })
    })
  )

  it.effect("fails start-up with a readable error when the directory cannot be used", () =>
    Effect.gen(function* () {
      const parent = mkdtempSync(NodePath.join(tmpdir(), "gw-files-"))
      const file = NodePath.join(parent, "not-a-directory")
      writeFileSync(file, "")
      const error = yield* Effect.flip(Effect.provide(Effect.asVoid(FileStore), FileStore.layerDisk(NodePath.join(file, "files"))))
      assert.strictEqual(error._tag, "FileStoreInitError")
      assert.include(error.message, NodePath.join(file, "files"))
      assert.include(error.message, "ENOTDIR")
      rmSync(parent, { recursive: true, force: true })
    })
  )
})
