import * as NodePath from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { S3Settings } from "../../Domain/GatewayConfig.ts"
import { AppConfig } from "../Config/AppConfig.ts"
import type { FileStoreShape } from "./FileStore/FileStoreShape.ts"
import { makeDiskFileStore } from "./FileStore/DiskFileStore.ts"
import type { FileStoreInitError } from "./FileStore/FileStoreErrors.ts"
import { makeMemoryFileStore } from "./FileStore/MemoryFileStore.ts"
import { ConfigLoadError, GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

export { FileStoreInitError } from "./FileStore/FileStoreErrors.ts"

export type { FileStoreShape, PutOptions, PutResult, StoredFile } from "./FileStore/FileStoreShape.ts"

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
