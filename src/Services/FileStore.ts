import * as NodePath from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type { S3Settings } from "../Domain/GatewayConfig.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { AppConfig } from "./AppConfig.ts"
import { makeDiskFileStore } from "./FileStore/DiskFileStore.ts"
import type { FileStoreInitError } from "./FileStore/FileStoreErrors.ts"
import { makeMemoryFileStore } from "./FileStore/MemoryFileStore.ts"
import { ConfigLoadError, GatewayConfigFile } from "./GatewayConfigLoader.ts"

export { FileStoreInitError } from "./FileStore/FileStoreErrors.ts"

export interface PutOptions {
  /** The upload fails with 413 as soon as its bytes pass this many; nothing is stored then. */
  readonly maxBytes: number
  readonly contentType: string
}

export interface PutResult {
  readonly bytes: number
  /** Lower-case hex SHA-256 of the stored bytes. */
  readonly sha256: string
}

export interface StoredFile {
  readonly bytes: number
  readonly contentType: string
  /**
   * The content, read lazily and never buffered whole. It fails with `NotFound` when the object
   * was deleted or replaced after `get` answered.
   */
  readonly stream: Stream.Stream<Uint8Array, GatewayError>
}

export interface FileStoreShape {
  /**
   * Streams `content` to storage under `key` (replacing any object there), measuring and hashing
   * it on the way. The object appears only once every byte is durably written: a stream failure,
   * a `maxBytes` breach or an interruption leaves nothing behind, not even a partial object.
   */
  readonly put: <E, R>(
    key: string,
    content: Stream.Stream<Uint8Array, E, R>,
    options: PutOptions
  ) => Effect.Effect<PutResult, E | GatewayError, R>
  /** `NotFound` when there is no object under `key`. */
  readonly get: (key: string) => Effect.Effect<StoredFile, GatewayError>
  /** Idempotent: deleting a missing object succeeds. */
  readonly delete: (key: string) => Effect.Effect<void, GatewayError>
  readonly exists: (key: string) => Effect.Effect<boolean, GatewayError>
}

/**
 * Blob storage for uploaded files. Keys are chosen by the caller (for example
 * `<projectId>/<fileId>`) and must be `/`-separated segments of letters, digits, `.`, `_` and `-`,
 * no segment starting with a dot; any other key fails with a 400 `InvalidRequest` (param `key`),
 * so a key can never reach outside the store. Storage failures are defects.
 */
export class FileStore extends Context.Service<FileStore, FileStoreShape>()("gateway/FileStore") {
  /** Files under `directory`, written to a temporary name, fsynced and renamed into place. */
  static readonly layerDisk = (directory: string): Layer.Layer<FileStore, FileStoreInitError> =>
    Layer.effect(FileStore, Effect.map(makeDiskFileStore(directory), FileStore.of))

  /**
   * Objects in an S3-compatible bucket; large uploads go up as multipart uploads. The AWS SDK
   * is loaded only when S3 is configured: it is tens of megabytes of every process otherwise.
   */
  static readonly layerS3 = (settings: S3Settings): Layer.Layer<FileStore, FileStoreInitError> =>
    Layer.effect(
      FileStore,
      Effect.promise(() => import("./FileStore/S3FileStore.ts")).pipe(
        Effect.flatMap(({ makeS3FileStore }) => makeS3FileStore(settings)),
        Effect.map(FileStore.of)
      )
    )

  /** In-process storage for tests; each build of the layer starts empty. */
  static readonly layerMemory: Layer.Layer<FileStore> = Layer.effect(
    FileStore,
    Effect.sync(() => FileStore.of(makeMemoryFileStore()))
  )

  /** The store that gateway.yaml's `files` section asks for. */
  static readonly layer: Layer.Layer<
    FileStore,
    ConfigLoadError | FileStoreInitError,
    GatewayConfigFile | AppConfig
  > = Layer.unwrap(
    Effect.gen(function* () {
      const { file, config } = yield* GatewayConfigFile
      const { dataDir } = yield* AppConfig
      switch (config.files.store) {
        case "disk":
          return FileStore.layerDisk(config.files.directory ?? NodePath.join(dataDir, "files"))
        case "s3": {
          if (config.files.s3 === undefined) {
            return yield* new ConfigLoadError({
              file,
              path: "files.s3",
              problem: "is required when files.store is s3 (bucket, region and optionally endpoint and keys)"
            })
          }
          return FileStore.layerS3(config.files.s3)
        }
      }
    })
  )
}
