import { Readable } from "node:stream"
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  type CompletedPart,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand
} from "@aws-sdk/client-s3"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { S3Settings } from "../../../Domain/GatewayConfig.ts"
import type { FileStoreShape, PutOptions } from "./FileStoreShape.ts"
import { makeByteMeter } from "./ByteMeter.ts"
import { changedFile, FileStoreInitError, fileTooLarge, missingFile } from "./FileStoreErrors.ts"
import { S3Failure } from "./S3Failure.ts"
import { validateContentType } from "./ContentType.ts"
import { validateKey } from "./StoreKey.ts"

/** S3's minimum part size. Uploads below it go up as one PutObject; one part is buffered at a time. */
export const partBytes = 5 * 1024 * 1024

const makeClient = (settings: S3Settings) =>
  Effect.gen(function* () {
    const { access_key_id: accessKeyId, secret_access_key: secretAccessKey } = settings
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
      return yield* new FileStoreInitError({
        message: "files.s3: access_key_id and secret_access_key must be given together (or both left out)"
      })
    }
    return yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new S3Client({
            region: settings.region,
            forcePathStyle: settings.force_path_style,
            ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
            // Without keys the SDK's default chain applies (environment, profile, instance role).
            ...(accessKeyId === undefined || secretAccessKey === undefined
              ? {}
              : {
                  credentials: {
                    accessKeyId: Redacted.value(accessKeyId),
                    secretAccessKey: Redacted.value(secretAccessKey)
                  }
                }),
            // The default CRC32 checksums (aws-chunked trailers) break many S3-compatible services.
            requestChecksumCalculation: "WHEN_REQUIRED",
            responseChecksumValidation: "WHEN_REQUIRED",
            // Each open download holds a socket until it is read to the end.
            requestHandler: {
              connectionTimeout: 10_000,
              httpAgent: { keepAlive: true, maxSockets: 256 },
              httpsAgent: { keepAlive: true, maxSockets: 256 }
            }
          })
      ),
      (client) => Effect.sync(() => client.destroy())
    )
  })

/**
 * Objects under `settings.prefix` in `settings.bucket`. A key `a/b` is stored as `<prefix>/a/b`
 * (no extra slash when the prefix is empty or already ends with one). Uploads of at least one
 * part size become a multipart upload that is aborted on any failure or interruption; smaller
 * ones are a single PutObject issued only after the whole content has arrived.
 */
export const makeS3FileStore = (
  settings: S3Settings
): Effect.Effect<FileStoreShape, FileStoreInitError, Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* makeClient(settings)
    const Bucket = settings.bucket
    const prefix = settings.prefix === "" || settings.prefix.endsWith("/") ? settings.prefix : `${settings.prefix}/`

    const objectKey = (key: string) => Effect.as(validateKey(key), `${prefix}${key}`)

    const send = <A>(operation: string, run: (abortSignal: AbortSignal) => Promise<A>): Effect.Effect<A, S3Failure> =>
      Effect.tryPromise({ try: run, catch: (cause) => S3Failure.fromCause(operation, cause) })

    const put = Effect.fn("FileStore.put")(function* <E, R>(
      key: string,
      content: Stream.Stream<Uint8Array, E, R>,
      options: PutOptions
    ) {
      const Key = yield* objectKey(key)
      yield* validateContentType(options.contentType)
      const ContentType = options.contentType
      const meter = makeByteMeter(options.maxBytes)
      let pending: Array<Uint8Array> = []
      let pendingBytes = 0
      let uploadId: string | undefined
      let completed = false
      const parts: Array<CompletedPart> = []

      const takePending = () => {
        const body = Buffer.concat(pending, pendingBytes)
        pending = []
        pendingBytes = 0
        return body
      }

      const uploadPart = Effect.gen(function* () {
        if (uploadId === undefined) {
          const created = yield* send("CreateMultipartUpload", (abortSignal) =>
            client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType }), { abortSignal })
          )
          if (created.UploadId === undefined) {
            return yield* Effect.die(new Error("CreateMultipartUpload returned no UploadId"))
          }
          uploadId = created.UploadId
        }
        const UploadId = uploadId
        const Body = takePending()
        const PartNumber = parts.length + 1
        const uploaded = yield* send("UploadPart", (abortSignal) =>
          client.send(
            new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body, ContentLength: Body.byteLength }),
            { abortSignal }
          )
        )
        parts.push({ PartNumber, ETag: uploaded.ETag })
      })

      // The last step publishes the object; uninterruptible so an interruption never races it.
      const publish = Effect.suspend(() => {
        if (uploadId === undefined) {
          const Body = takePending()
          return send("PutObject", (abortSignal) =>
            client.send(new PutObjectCommand({ Bucket, Key, Body, ContentLength: Body.byteLength, ContentType }), {
              abortSignal
            })
          )
        }
        const UploadId = uploadId
        return (pendingBytes > 0 ? uploadPart : Effect.void).pipe(
          Effect.andThen(
            send("CompleteMultipartUpload", (abortSignal) =>
              client.send(
                new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
                { abortSignal }
              )
            )
          ),
          Effect.tap(() => Effect.sync(() => (completed = true)))
        )
      }).pipe(Effect.uninterruptible)

      const abandon = Effect.suspend(() => {
        if (uploadId === undefined || completed) return Effect.void
        const UploadId = uploadId
        return send("AbortMultipartUpload", (abortSignal) =>
          client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }), { abortSignal })
        ).pipe(
          Effect.interruptible,
          Effect.timeout("30 seconds"),
          // The bucket's lifecycle rule for incomplete multipart uploads is the backstop.
          Effect.catch((failure) =>
            Effect.logWarning("Could not abort a multipart upload", {
              key: Key,
              uploadId: UploadId,
              failure: failure.message
            })
          )
        )
      })

      return yield* Stream.runForEach(content, (chunk) => {
        if (!meter.add(chunk)) return Effect.fail(fileTooLarge(options.maxBytes))
        pending.push(chunk)
        pendingBytes += chunk.byteLength
        return pendingBytes >= partBytes ? Effect.orDie(uploadPart) : Effect.void
      }).pipe(
        Effect.andThen(Effect.orDie(publish)),
        Effect.map(() => meter.result()),
        Effect.onExit(() => abandon)
      )
    })

    const notFoundOn = (missing: () => ReturnType<typeof missingFile>) => (failure: S3Failure) =>
      failure.isNotFound ? Effect.fail(missing()) : Effect.die(failure)

    const get = Effect.fn("FileStore.get")(function* (key: string) {
      const Key = yield* objectKey(key)
      const head = yield* send("HeadObject", (abortSignal) =>
        client.send(new HeadObjectCommand({ Bucket, Key }), { abortSignal })
      ).pipe(Effect.catch(notFoundOn(missingFile)))
      if (head.ContentLength === undefined) return yield* Effect.die(new Error("HeadObject returned no ContentLength"))
      const bytes = head.ContentLength
      const IfMatch = head.ETag
      const stream = Stream.unwrap(
        Effect.gen(function* () {
          // Released with the stream's scope, so a body that is never read still frees its socket.
          const object = yield* Effect.acquireRelease(
            send("GetObject", (abortSignal) =>
              client.send(new GetObjectCommand({ Bucket, Key, ...(IfMatch === undefined ? {} : { IfMatch }) }), {
                abortSignal
              })
            ).pipe(
              Effect.catch((failure) =>
                failure.isPreconditionFailed ? Effect.fail(changedFile()) : notFoundOn(changedFile)(failure)
              )
            ),
            (object) => Effect.sync(() => (object.Body instanceof Readable ? object.Body.destroy() : undefined)),
            { interruptible: true }
          )
          const body = object.Body
          if (!(body instanceof Readable)) return yield* Effect.die(new Error("GetObject returned no readable body"))
          return NodeStream.fromReadable<Uint8Array, unknown>({ evaluate: () => body, onError: (cause) => cause }).pipe(
            Stream.orDie
          )
        })
      )
      return { bytes, contentType: head.ContentType ?? "application/octet-stream", stream }
    })

    return {
      put,
      get,
      delete: Effect.fn("FileStore.delete")(function* (key: string) {
        const Key = yield* objectKey(key)
        yield* send("DeleteObject", (abortSignal) =>
          client.send(new DeleteObjectCommand({ Bucket, Key }), { abortSignal })
        ).pipe(
          Effect.catch((failure) => (failure.isNotFound ? Effect.void : Effect.die(failure)))
        )
      }),
      exists: Effect.fn("FileStore.exists")(function* (key: string) {
        const Key = yield* objectKey(key)
        return yield* send("HeadObject", (abortSignal) =>
          client.send(new HeadObjectCommand({ Bucket, Key }), { abortSignal })
        ).pipe(
          Effect.as(true),
          Effect.catch((failure) => (failure.isNotFound ? Effect.succeed(false) : Effect.die(failure)))
        )
      })
    }
  })
