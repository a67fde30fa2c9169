import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { GatewayError } from "../../../Domain/GatewayError.ts"

/** What every blob store (disk, S3, memory) offers; `FileStore` picks one from the configuration. */
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
