import { randomUUID } from "node:crypto"
import { constants } from "node:fs"
import * as Fs from "node:fs/promises"
import * as NodePath from "node:path"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { FileStoreShape, PutOptions, StoredFile } from "./FileStoreShape.ts"
import { makeByteMeter } from "./ByteMeter.ts"
import { encodeTrailer, readTrailer, type Trailer } from "./DiskTrailer.ts"
import { changedFile, FileStoreInitError, fileTooLarge, missingFile } from "./FileStoreErrors.ts"
import { validateContentType } from "./ContentType.ts"
import { validateKey } from "./StoreKey.ts"

const readChunkBytes = 64 * 1024
/** Temporary files older than this are leftovers of a crash, never a running upload. */
const staleTemporaryMs = 24 * 60 * 60 * 1000
const temporaryName = /^\..+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/

const errnoCode = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined

/** ENOENT, or a path component that is a file (ENOTDIR): either way nothing is stored there. */
const isAbsent = (cause: unknown): boolean => {
  const code = errnoCode(cause)
  return code === "ENOENT" || code === "ENOTDIR"
}

const attempt = <A>(run: () => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: run, catch: (cause) => cause })

/** Storage I/O whose failure is an infrastructure problem. */
const io = <A>(run: () => Promise<A>): Effect.Effect<A> => attempt(run).pipe(Effect.orDie)

const writeAll = async (handle: Fs.FileHandle, data: Uint8Array): Promise<void> => {
  let offset = 0
  while (offset < data.byteLength) {
    const { bytesWritten } = await handle.write(data, offset, data.byteLength - offset)
    offset += bytesWritten
  }
}

/** Makes a completed rename survive a power cut. Not every platform can fsync a directory. */
const syncDirectory = async (directory: string): Promise<void> => {
  try {
    const handle = await Fs.open(directory, "r")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // best effort: the file itself is already fsynced
  }
}

interface Located {
  readonly trailer: Trailer
  /** Identifies this version of the file, so a reader notices a replacement. */
  readonly identity: { readonly ino: number; readonly size: number }
}

const locate = async (path: string): Promise<Located | undefined> => {
  let handle: Fs.FileHandle
  try {
    handle = await Fs.open(path, "r")
  } catch (cause) {
    if (isAbsent(cause)) return undefined
    throw cause
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return undefined
    return { trailer: await readTrailer(handle, stat.size, path), identity: { ino: stat.ino, size: stat.size } }
  } finally {
    await handle.close()
  }
}

const sweepStaleTemporaryFiles = (root: string) =>
  attempt(async () => {
    let removed = 0
    for (const entry of await Fs.readdir(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !temporaryName.test(entry.name)) continue
      const path = NodePath.join(entry.parentPath, entry.name)
      const stat = await Fs.stat(path).catch(() => undefined)
      if (stat !== undefined && Date.now() - stat.mtimeMs > staleTemporaryMs) {
        await Fs.rm(path, { force: true })
        removed++
      }
    }
    return removed
  }).pipe(
    Effect.flatMap((removed) =>
      removed > 0 ? Effect.logInfo("Removed stale temporary upload files", { directory: root, removed }) : Effect.void
    ),
    Effect.catch((cause) =>
      Effect.logWarning("Could not sweep stale temporary upload files", { directory: root, code: errnoCode(cause) })
    )
  )

/**
 * One file per key under `directory`; the key's segments are the relative path. An upload is
 * written to a dot-named temporary file next to its target, fsynced, and renamed into place, so
 * readers see either the old object or the complete new one.
 */
export const makeDiskFileStore = (
  directory: string
): Effect.Effect<FileStoreShape, FileStoreInitError, Scope.Scope> =>
  Effect.gen(function* () {
    const root = NodePath.resolve(directory)
    yield* Effect.tryPromise({
      try: async () => {
        await Fs.mkdir(root, { recursive: true })
        await Fs.access(root, constants.R_OK | constants.W_OK)
      },
      catch: (cause) =>
        new FileStoreInitError({
          message: `file store directory ${root} cannot be used (${String(errnoCode(cause) ?? cause)})`
        })
    })
    yield* Effect.forkScoped(sweepStaleTemporaryFiles(root))

    const pathOf = (key: string) => Effect.map(validateKey(key), (segments) => NodePath.join(root, ...segments))

    const put = Effect.fn("FileStore.put")(function* <E, R>(
      key: string,
      content: Stream.Stream<Uint8Array, E, R>,
      options: PutOptions
    ) {
      const target = yield* pathOf(key)
      yield* validateContentType(options.contentType)
      const parent = NodePath.dirname(target)
      const temporary = NodePath.join(parent, `.${NodePath.basename(target)}.${randomUUID()}.tmp`)
      const meter = makeByteMeter(options.maxBytes)
      let committed = false
      yield* io(() => Fs.mkdir(parent, { recursive: true }))

      const write = Effect.acquireUseRelease(
        io(() => Fs.open(temporary, "wx", 0o600)),
        (handle) =>
          Effect.gen(function* () {
            yield* Stream.runForEach(content, (chunk) =>
              meter.add(chunk) ? io(() => writeAll(handle, chunk)) : Effect.fail(fileTooLarge(options.maxBytes))
            )
            const result = meter.result()
            yield* io(async () => {
              await writeAll(handle, encodeTrailer({ contentType: options.contentType, ...result }))
              await handle.sync()
            })
            return result
          }),
        (handle) => io(() => handle.close())
      )
      // Uninterruptible so an interruption cannot land between a finished rename and `committed`.
      const commit = io(async () => {
        await Fs.rename(temporary, target)
        committed = true
        await syncDirectory(parent)
      }).pipe(Effect.uninterruptible)

      return yield* write.pipe(
        Effect.tap(() => commit),
        Effect.onExit(() => (committed ? Effect.void : Effect.ignore(attempt(() => Fs.rm(temporary, { force: true })))))
      )
    })

    const get = Effect.fn("FileStore.get")(function* (key: string) {
      const path = yield* pathOf(key)
      const located = yield* io(() => locate(path))
      if (located === undefined) return yield* missingFile()
      const { trailer, identity } = located
      const stream: StoredFile["stream"] = Stream.unwrap(
        Effect.gen(function* () {
          const handle = yield* Effect.acquireRelease(
            attempt(() => Fs.open(path, "r")).pipe(
              Effect.catch((cause) => (isAbsent(cause) ? Effect.fail(changedFile()) : Effect.die(cause)))
            ),
            (handle) => Effect.ignore(attempt(() => handle.close()))
          )
          const stat = yield* io(() => handle.stat())
          if (stat.ino !== identity.ino || stat.size !== identity.size) return yield* changedFile()
          if (trailer.bytes === 0) return Stream.empty
          return NodeStream.fromReadable<Uint8Array, unknown>({
            evaluate: () =>
              handle.createReadStream({
                start: 0,
                end: trailer.bytes - 1,
                autoClose: false,
                highWaterMark: readChunkBytes
              }),
            onError: (cause) => cause
          }).pipe(Stream.orDie)
        })
      )
      return { bytes: trailer.bytes, contentType: trailer.contentType, stream }
    })

    return {
      put,
      get,
      delete: Effect.fn("FileStore.delete")(function* (key: string) {
        const path = yield* pathOf(key)
        yield* attempt(() => Fs.unlink(path)).pipe(
          // EISDIR: the key is only a prefix of other keys, so there is no object to delete.
          Effect.catch((cause) => (isAbsent(cause) || errnoCode(cause) === "EISDIR" ? Effect.void : Effect.die(cause)))
        )
      }),
      exists: Effect.fn("FileStore.exists")(function* (key: string) {
        const path = yield* pathOf(key)
        return (yield* io(() => locate(path))) !== undefined
      })
    }
  })
