import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3"
import { assert, describe, it, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Redacted, Stream } from "effect"
import { FileStore } from "../../../../src/Services/Files/FileStore.ts"
import { partBytes } from "../../../../src/Services/Files/FileStore/S3FileStore.ts"
import { LocalS3Server } from "../../../support/LocalS3.ts"
import { generated, MiB, outcome, StoreInspector, uniqueKey } from "./FileStoreSupport.ts"
import { fileStoreSuite } from "./FileStoreSuite.ts"

const prefix = "tenant-a/"

/** Looks at the bucket through the S3 API: objects under the prefix and unfinished multipart uploads. */
const S3Inspector = Layer.effect(
  StoreInspector,
  Effect.gen(function* () {
    const server = yield* LocalS3Server
    const client = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new S3Client({
            endpoint: server.endpoint,
            region: "us-east-1",
            forcePathStyle: true,
            credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
          })
      ),
      (client) => Effect.sync(() => client.destroy())
    )
    return StoreInspector.of({
      stagesUploads: true,
      traces: (key) =>
        Effect.promise(async () => {
          const objects = await client.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: `${prefix}${key}` }))
          const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: server.bucket }))
          return [
            ...(objects.Contents ?? []).map((o) => `object:${o.Key}`),
            ...(uploads.Uploads ?? []).filter((u) => u.Key?.includes(key) === true).map((u) => `upload:${u.Key}:${u.UploadId}`)
          ]
        })
    })
  })
)

const S3Live = Layer.unwrap(
  Effect.map(LocalS3Server.useSync((server) => server), (server) =>
    Layer.mergeAll(FileStore.layerS3(server.settings({ prefix: "tenant-a" })), S3Inspector)
  )
).pipe(Layer.provideMerge(LocalS3Server.layer))

fileStoreSuite("FileStore.layerS3 (s3rver)", S3Live)

layer(S3Live, { excludeTestServices: true, timeout: "60 seconds" })("FileStore.layerS3 requests", (it) => {
  const callsFor = (server: LocalS3Server["Service"], key: string, from: number) =>
    server.requests.slice(from).filter((line) => line.includes(key))

  it.effect("uploads an object of several parts as a multipart upload and a small one with one PutObject", () =>
    Effect.gen(function* () {
      const store = yield* FileStore
      const server = yield* LocalS3Server
      const big = uniqueKey("parts")
      const size = 2 * partBytes + 1234
      let from = server.requests.length
      yield* store.put(big, generated(size, 4).stream, { maxBytes: size, contentType: "application/pdf" })
      const bigCalls = callsFor(server, big, from)
      assert.deepStrictEqual(bigCalls, [
        `POST /${server.bucket}/${prefix}${big} ?uploads`,
        `PUT /${server.bucket}/${prefix}${big} ?uploadId&partNumber`,
        `PUT /${server.bucket}/${prefix}${big} ?uploadId&partNumber`,
        `PUT /${server.bucket}/${prefix}${big} ?uploadId&partNumber`,
        `POST /${server.bucket}/${prefix}${big} ?uploadId`
      ])
      const small = uniqueKey("single")
      from = server.requests.length
      yield* store.put(small, generated(1000, 5).stream, { maxBytes: 1000, contentType: "text/plain" })
      assert.deepStrictEqual(callsFor(server, small, from), [`PUT /${server.bucket}/${prefix}${small}`])
    })
  )

  it.effect("aborts the multipart upload when the limit is passed midway", () =>
    Effect.gen(function* () {
      const store = yield* FileStore
      const server = yield* LocalS3Server
      const key = uniqueKey("abort")
      const from = server.requests.length
      const result = yield* outcome(
        store.put(key, generated(Number.POSITIVE_INFINITY, 6).stream, { maxBytes: 6 * MiB, contentType: "text/plain" })
      )
      assert.strictEqual(result, "PayloadTooLarge")
      assert.deepStrictEqual(callsFor(server, key, from), [
        `POST /${server.bucket}/${prefix}${key} ?uploads`,
        `PUT /${server.bucket}/${prefix}${key} ?uploadId&partNumber`,
        `DELETE /${server.bucket}/${prefix}${key} ?uploadId`
      ])
    })
  )
})

describe("FileStore.layerS3 settings", () => {
  it.live("keeps the secret out of failures and logs", () =>
    Effect.gen(function* () {
      const server = yield* LocalS3Server
      const secret = "sk-very-secret-value-42"
      const settings = server.settings({ bucket: "no-such-bucket", secret_access_key: Redacted.make(secret) })
      assert.notInclude(JSON.stringify(settings), secret)
      const exit = yield* Effect.exit(
        Effect.gen(function* () {
          const store = yield* FileStore
          return yield* store.put(uniqueKey("secret"), Stream.make(new Uint8Array([1])), { maxBytes: 1, contentType: "text/plain" })
        }).pipe(Effect.provide(FileStore.layerS3(settings)))
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        assert.isTrue(Cause.hasDies(exit.cause))
        const rendered = Cause.pretty(exit.cause)
        assert.include(rendered, "NoSuchBucket")
        assert.notInclude(rendered, secret)
      }
    }).pipe(Effect.provide(LocalS3Server.layer))
  )

  it.live("refuses an access key without its secret", () =>
    Effect.gen(function* () {
      const server = yield* LocalS3Server
      const { secret_access_key: _, ...settings } = server.settings()
      const error = yield* Effect.flip(Effect.provide(Effect.asVoid(FileStore.useSync((store) => store)), FileStore.layerS3(settings)))
      assert.strictEqual(error._tag, "FileStoreInitError")
      assert.include(error.message, "secret_access_key")
    }).pipe(Effect.provide(LocalS3Server.layer))
  )
})
