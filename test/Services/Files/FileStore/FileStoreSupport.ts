import { createHash, randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { Context, Duration, Effect, Schema, Stream } from "effect"

/** What a store physically holds, looked at from outside the store. */
export class StoreInspector extends Context.Service<
  StoreInspector,
  {
    /** Names of everything held for `key`: the object, temporary files, unfinished multipart uploads. */
    readonly traces: (key: string) => Effect.Effect<ReadonlyArray<string>>
    /** Whether an upload in progress shows up in `traces` (the memory store keeps it in the fiber). */
    readonly stagesUploads: boolean
  }
>()("test/StoreInspector") {}

import { fixturesDir } from "../../../support/Fixtures.ts"

export { fixturesDir }

const Manifest = Schema.Struct({
  files: Schema.Array(
    Schema.Struct({ path: Schema.String, mime: Schema.String, size_bytes: Schema.Number, sha256: Schema.String })
  )
})
export const manifest = Schema.decodeUnknownSync(Manifest)(
  JSON.parse(readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8"))
)

export const MiB = 1024 * 1024

export const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex")

let counter = 0
/** A fresh key per call, so tests sharing one store never see each other's objects. */
export const uniqueKey = (label: string) => `proj_test/${label}-${++counter}-${randomBytes(4).toString("hex")}`

/** `data` as a stream of `size`-byte chunks (odd sizes exercise chunk boundaries). */
export const chunked = (data: Uint8Array, size: number): Stream.Stream<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  for (let offset = 0; offset < data.byteLength; offset += size) chunks.push(data.subarray(offset, offset + size))
  return Stream.fromArray(chunks)
}

/**
 * Deterministic pseudo-random content generated chunk by chunk, never held whole in memory.
 * `totalBytes` Infinity makes an endless stream; `pulled` counts the chunks handed out.
 */
export const generated = (totalBytes: number, seed: number, chunkBytes = MiB) => {
  const stats = { pulled: 0 }
  const iterable: Iterable<Uint8Array> = {
    *[Symbol.iterator]() {
      let state = seed >>> 0 || 1
      for (let produced = 0; produced < totalBytes; produced += chunkBytes) {
        const chunk = new Uint8Array(Math.min(chunkBytes, totalBytes - produced))
        const words = new Uint32Array(chunk.buffer, 0, chunk.byteLength >>> 2)
        for (let i = 0; i < words.length; i++) {
          state ^= state << 13
          state ^= state >>> 17
          state ^= state << 5
          words[i] = state
        }
        for (let i = words.length * 4; i < chunk.byteLength; i++) chunk[i] = i & 0xff
        stats.pulled++
        yield chunk
      }
    }
  }
  const expectedSha256 = () => {
    const hash = createHash("sha256")
    for (const chunk of iterable) hash.update(chunk)
    return hash.digest("hex")
  }
  return { stream: Stream.fromIterable(iterable, { chunkSize: 1 }), stats, expectedSha256 }
}

/** Reads a stream to the end, returning the byte count and hash without keeping the bytes. */
export const digest = <E>(stream: Stream.Stream<Uint8Array, E>) =>
  Stream.runFold(
    stream,
    () => ({ bytes: 0, hash: createHash("sha256") }),
    (acc, chunk) => {
      acc.bytes += chunk.byteLength
      acc.hash.update(chunk)
      return acc
    }
  ).pipe(Effect.map((acc) => ({ bytes: acc.bytes, sha256: acc.hash.digest("hex") })))

export const collect = <E>(stream: Stream.Stream<Uint8Array, E>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(chunks))

const reasonTag = (error: unknown): string =>
  typeof error === "object" && error !== null && "reason" in error && typeof error.reason === "object" &&
    error.reason !== null && "_tag" in error.reason
    ? String(error.reason._tag)
    : String(error)

/** The failure's reason tag (for a GatewayError), or "succeeded". */
export const outcome = <A, E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.map(() => "succeeded"),
    Effect.catch((error) => Effect.succeed(reasonTag(error)))
  )

/** Polls `check` on the real clock until it holds or `within` passes. */
export const eventually = (check: Effect.Effect<boolean>, within: Duration.Input = "5 seconds") =>
  Effect.gen(function* () {
    const deadline = Date.now() + Duration.toMillis(within)
    while (!(yield* check)) {
      if (Date.now() > deadline) return false
      yield* Effect.sleep("20 millis")
    }
    return true
  })
