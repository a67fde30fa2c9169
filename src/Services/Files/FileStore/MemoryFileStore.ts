import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { FileStoreShape, PutOptions } from "./FileStoreShape.ts"
import { makeByteMeter } from "./ByteMeter.ts"
import { changedFile, fileTooLarge, missingFile } from "./FileStoreErrors.ts"
import { validateContentType } from "./ContentType.ts"
import { validateKey } from "./StoreKey.ts"

interface Entry {
  readonly data: Uint8Array
  readonly contentType: string
}

const readChunkBytes = 64 * 1024

/** Same contract as the other stores, objects kept in a Map. */
export const makeMemoryFileStore = (): FileStoreShape => {
  const objects = new Map<string, Entry>()

  const put = Effect.fn("FileStore.put")(function* <E, R>(
    key: string,
    content: Stream.Stream<Uint8Array, E, R>,
    options: PutOptions
  ) {
    yield* validateKey(key)
    yield* validateContentType(options.contentType)
    const meter = makeByteMeter(options.maxBytes)
    const chunks: Array<Uint8Array> = []
    yield* Stream.runForEach(content, (chunk) => {
      if (!meter.add(chunk)) return Effect.fail(fileTooLarge(options.maxBytes))
      chunks.push(chunk.slice())
      return Effect.void
    })
    const result = meter.result()
    const data = new Uint8Array(result.bytes)
    let offset = 0
    for (const chunk of chunks) {
      data.set(chunk, offset)
      offset += chunk.byteLength
    }
    objects.set(key, { data, contentType: options.contentType })
    return result
  })

  const get = Effect.fn("FileStore.get")(function* (key: string) {
    yield* validateKey(key)
    const entry = objects.get(key)
    if (entry === undefined) return yield* missingFile()
    const stream = Stream.suspend(() =>
      objects.get(key) === entry
        ? Stream.fromIterable(chunksOf(entry.data))
        : Stream.fail(changedFile())
    )
    return { bytes: entry.data.byteLength, contentType: entry.contentType, stream }
  })

  return {
    put,
    get,
    delete: Effect.fn("FileStore.delete")(function* (key: string) {
      yield* validateKey(key)
      objects.delete(key)
    }),
    exists: Effect.fn("FileStore.exists")(function* (key: string) {
      yield* validateKey(key)
      return objects.has(key)
    })
  }
}

function* chunksOf(data: Uint8Array): Generator<Uint8Array> {
  for (let offset = 0; offset < data.byteLength; offset += readChunkBytes) {
    yield data.subarray(offset, offset + readChunkBytes)
  }
}
