import { randomBytes } from "node:crypto"
import { type FileHandle, open, rm } from "node:fs/promises"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { GatewayError } from "../../Domain/GatewayError.ts"

/** Audio written to a temporary file for the lifetime of one request. */
export interface StagedAudio {
  readonly path: string
  readonly bytes: number
  readonly filename: string
}

const unwritable = (error: unknown) => GatewayError.internal(`audio upload could not be written: ${String(error)}`)

/**
 * A new temporary file in `dir`, removed when the scope (the request) closes, however it ends:
 * answered, failed, refused at the size limit or abandoned by the client.
 */
const tempFile = (dir: string): Effect.Effect<{ readonly path: string; readonly handle: FileHandle }, GatewayError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const path = NodePath.join(dir, `gateway-audio-${randomBytes(12).toString("hex")}`)
        return { path, handle: await open(path, "wx", 0o600) }
      },
      catch: unwritable
    }),
    ({ path, handle }) => Effect.promise(() => handle.close().catch(() => undefined).then(() => rm(path, { force: true })))
  )

/**
 * Streams `content` into a temporary file, never holding more than one chunk of it, and fails
 * with `tooLarge` the moment the bytes pass `maxBytes` (the partial file goes with the scope).
 */
export const stageStream = <E>(
  dir: string,
  filename: string,
  content: Stream.Stream<Uint8Array, E>,
  maxBytes: number,
  tooLarge: () => GatewayError
): Effect.Effect<StagedAudio, GatewayError | E, Scope.Scope> =>
  Effect.flatMap(tempFile(dir), ({ path, handle }) => {
    let bytes = 0
    return content.pipe(
      Stream.runForEach((chunk) => {
        bytes += chunk.length
        if (bytes > maxBytes) return Effect.fail(tooLarge())
        return Effect.tryPromise({ try: () => handle.write(chunk), catch: unwritable })
      }),
      Effect.andThen(Effect.tryPromise({ try: () => handle.close(), catch: unwritable })),
      Effect.map(() => ({ path, bytes, filename }))
    )
  })

/** Bytes already in memory (a fetched URL, bounded by the fetch limit) to a temporary file. */
export const stageBytes = (dir: string, filename: string, bytes: Uint8Array): Effect.Effect<StagedAudio, GatewayError, Scope.Scope> =>
  Effect.flatMap(tempFile(dir), ({ path, handle }) =>
    Effect.tryPromise({
      try: async () => {
        await handle.writeFile(bytes)
        await handle.close()
        return { path, bytes: bytes.length, filename }
      },
      catch: unwritable
    }))
