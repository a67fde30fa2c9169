import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import type { Principal } from "../../Domain/ApiKey.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { type FileObject, type FilePurpose, fileObject, noSuchFile, type StoredFileRecord } from "../../Domain/StoredFile.ts"
import { Extractor } from "./Extractor.ts"
import { type FileRow, fromRow, listFiles, type ListQuery } from "./FilesQueries.ts"
import { FileStore } from "./FileStore.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { storageGuard } from "../Storage/StorageGuard.ts"

export interface StageInput {
  readonly filename: string
  readonly contentType: string
}

/** Form fields that may arrive after the file part; already validated. */
export interface FileFields {
  readonly purpose: FilePurpose
  /** Seconds from creation. */
  readonly expiresAfterSeconds: number | undefined
}

/** Bytes stored but not yet a file: committed once the form is complete, or discarded. */
export interface StagedFile {
  readonly id: string
  readonly key: string
  readonly filename: string
  readonly contentType: string
  readonly bytes: number
  readonly sha256: string
}

/** Images are stored as they are; there is no text to extract from them. */
const needsExtraction = (contentType: string, filename: string): boolean =>
  !/^image\/(png|jpeg|gif|webp)$/.test(contentType) && !/\.(png|jpe?g|gif|webp)$/i.test(filename)

/**
 * Project-scoped files: metadata in the database, bytes in the FileStore. Every read filters
 * by project and by expiry against the gateway clock, so an expired file disappears at
 * `expires_at` even before the sweeper has removed its bytes.
 */
export class Files extends Context.Service<
  Files,
  {
    /** Streams the upload into the store (never whole in memory); the file does not exist yet. */
    readonly stage: <E>(principal: Principal, meta: StageInput, content: Stream.Stream<Uint8Array, E>) => Effect.Effect<StagedFile, GatewayError | E>
    /** Records a staged upload as a file; text extraction then runs in the background. */
    readonly commit: (principal: Principal, staged: StagedFile, fields: FileFields) => Effect.Effect<FileObject, GatewayError>
    /** Deletes the bytes of an upload that will not become a file. */
    readonly discard: (staged: StagedFile) => Effect.Effect<void>
    readonly list: (principal: Principal, query: ListQuery) => Effect.Effect<{ readonly data: ReadonlyArray<FileObject>; readonly hasMore: boolean }, GatewayError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<FileObject, GatewayError>
    readonly record: (projectId: string, id: string) => Effect.Effect<StoredFileRecord, GatewayError>
    readonly content: (
      principal: Principal,
      id: string
    ) => Effect.Effect<{ readonly file: StoredFileRecord; readonly stream: Stream.Stream<Uint8Array, GatewayError> }, GatewayError>
    /** The whole file, for chat documents; a file over `maxBytes` is a 413 and is not read. */
    readonly bytes: (
      projectId: string,
      id: string,
      maxBytes: number
    ) => Effect.Effect<{ readonly file: StoredFileRecord; readonly bytes: Uint8Array }, GatewayError>
    readonly remove: (principal: Principal, id: string) => Effect.Effect<{ readonly id: string; readonly object: "file"; readonly deleted: true }, GatewayError>
    /** Removes expired files (rows and bytes); safe to run on several instances at once. */
    readonly sweep: Effect.Effect<number>
  }
>()("gateway/Files") {
  static readonly layer = Layer.effect(
    Files,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* FileStore
      const extractor = yield* Extractor
      const { config } = yield* GatewayConfigFile
      const settings = config.files
      const guard = storageGuard(config.resilience)
      const background = yield* FiberSet.make()
      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => ms / 1000)

      const columns = sql`id, project_id, filename, purpose, bytes::float8 AS bytes, content_type, sha256, status, status_details,
        storage_key, extract(epoch from created_at)::float8 AS created_at, extract(epoch from expires_at)::float8 AS expires_at`

      const record = Effect.fn("Files.record")(function* (projectId: string, id: string) {
        const now = new Date((yield* nowSeconds) * 1000)
        const rows = yield* sql<FileRow>`SELECT ${columns} FROM files WHERE id = ${id} AND project_id = ${projectId}
          AND (expires_at IS NULL OR expires_at > ${now})`.pipe(guard)
        const row = rows[0]
        if (row === undefined) return yield* GatewayError.notFound(noSuchFile(id), "file_id")
        return fromRow(row)
      })

      const setStatus = (id: string, status: "processed" | "error", details: string | null) =>
        sql`UPDATE files SET status = ${status}, status_details = ${details} WHERE id = ${id}`.pipe(Effect.orDie, Effect.asVoid)

      const readAll = (key: string) =>
        Effect.gen(function* () {
          const stored = yield* store.get(key)
          const chunks = yield* Stream.runCollect(stored.stream)
          return Buffer.concat(chunks)
        })

      // Text extraction after the upload answered: processed, or error with the reason. The
      // extractor needs the whole file in memory, so only files a chat request could carry
      // (`files.max_inline_mb`) are read: a larger upload never costs its size in memory.
      const maxExtractedBytes = settings.max_inline_mb * 1024 * 1024
      const process = (file: StoredFileRecord) =>
        Effect.gen(function* () {
          if (!needsExtraction(file.contentType, file.filename)) return yield* setStatus(file.id, "processed", null)
          if (file.bytes > maxExtractedBytes) {
            return yield* setStatus(file.id, "error", `${file.filename}: larger than the ${settings.max_inline_mb} MB limit of documents sent to a model (files.max_inline_mb)`)
          }
          // Read once an extraction slot is held: uploads waiting for one hold no bytes.
          const load = Effect.map(readAll(file.storageKey), (bytes) => ({ bytes, filename: file.filename, mimeType: file.contentType }))
          yield* extractor.extractFrom(load).pipe(
            Effect.matchEffect({
              onSuccess: () => setStatus(file.id, "processed", null),
              onFailure: (error) => setStatus(file.id, "error", error.reason.message)
            })
          )
        }).pipe(
          Effect.catchCause((cause) => Effect.logWarning(`processing ${file.id} failed`, cause)),
          Effect.withSpan("Files.process")
        )

      const stage = <E>(principal: Principal, meta: StageInput, content: Stream.Stream<Uint8Array, E>) =>
        Effect.gen(function* () {
          const id = Ids.fileId()
          const key = `${principal.projectId}/${id}`
          const stored = yield* store.put(key, content, { maxBytes: settings.max_upload_mb * 1024 * 1024, contentType: meta.contentType })
          return { id, key, filename: meta.filename, contentType: meta.contentType, bytes: stored.bytes, sha256: stored.sha256 } satisfies StagedFile
        }).pipe(Effect.withSpan("Files.stage"))

      const commit = Effect.fn("Files.commit")(function* (principal: Principal, staged: StagedFile, rest: FileFields) {
        const created = yield* nowSeconds
        const expiresAt = rest.expiresAfterSeconds === undefined ? null : Math.floor(created) + rest.expiresAfterSeconds
        const rows = yield* sql<FileRow>`INSERT INTO files (id, project_id, user_id, filename, purpose, bytes, content_type, sha256,
            status, storage_key, created_at, expires_at)
          VALUES (${staged.id}, ${principal.projectId}, ${principal.userId}, ${staged.filename}, ${rest.purpose}, ${staged.bytes},
            ${staged.contentType}, ${staged.sha256}, 'uploaded', ${staged.key}, ${new Date(created * 1000)},
            ${expiresAt === null ? null : new Date(expiresAt * 1000)})
          RETURNING ${columns}`.pipe(guard)
        const file = fromRow(rows[0]!)
        yield* FiberSet.run(background, process(file))
        return fileObject(file)
      })

      const discard = (staged: StagedFile) => store.delete(staged.key).pipe(Effect.ignore)

      const remove = Effect.fn("Files.remove")(function* (principal: Principal, id: string) {
        const file = yield* record(principal.projectId, id)
        yield* sql`DELETE FROM files WHERE id = ${file.id}`.pipe(guard)
        yield* store.delete(file.storageKey).pipe(Effect.catchCause((cause) => Effect.logWarning(`bytes of ${id} not deleted`, cause)))
        return { id: file.id, object: "file", deleted: true } as const
      })

      const sweep = Effect.gen(function* () {
        const now = new Date((yield* nowSeconds) * 1000)
        // SKIP LOCKED lets several instances sweep at once without deleting a file twice.
        const expired = yield* sql<{ id: string; storage_key: string }>`DELETE FROM files WHERE id IN (
            SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= ${now}
            ORDER BY expires_at LIMIT 500 FOR UPDATE SKIP LOCKED)
          RETURNING id, storage_key`
        for (const row of expired) yield* store.delete(row.storage_key).pipe(Effect.ignore)
        return expired.length
      }).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("file sweep failed", cause), 0)),
        Effect.withSpan("Files.sweep")
      )

      yield* Effect.forkScoped(
        Effect.repeat(
          Effect.andThen(Effect.sleep(`${settings.sweep_interval_seconds} seconds`), sweep),
          { while: () => true }
        )
      )

      return Files.of({
        stage,
        commit,
        discard,
        list: Effect.fn("Files.list")(function* (principal: Principal, query: ListQuery) {
          const result = yield* guard(listFiles(sql, columns, principal.projectId, query, new Date((yield* nowSeconds) * 1000)))
          return { data: result.rows.map(fileObject), hasMore: result.hasMore }
        }),
        get: (principal, id) => Effect.map(record(principal.projectId, id), fileObject),
        record,
        content: Effect.fn("Files.content")(function* (principal: Principal, id: string) {
          const file = yield* record(principal.projectId, id)
          const stored = yield* store.get(file.storageKey)
          return { file, stream: stored.stream }
        }),
        bytes: Effect.fn("Files.bytes")(function* (projectId: string, id: string, maxBytes: number) {
          const file = yield* record(projectId, id)
          if (file.bytes > maxBytes) {
            return yield* GatewayError.tooLarge(`${file.filename} is larger than the ${Math.floor(maxBytes / (1024 * 1024))} MB limit of documents sent to a model.`)
          }
          return { file, bytes: yield* readAll(file.storageKey) }
        }),
        remove,
        sweep
      })
    })
  )
}
