import { readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { Effect, Exit, Stream } from "effect"
import type { ChatStreamEvent } from "../../src/Domain/ChatStreamEvent.ts"
import type { GatewayError } from "../../src/Domain/GatewayError.ts"
import type { ChunkEnvelope } from "../../src/Streams/ChunkNormaliser.ts"
import { normalisedChunks } from "../../src/Streams/ChatEventStream.ts"

/**
 * What the golden stream tests of every provider share: `test/fixtures/<provider>/<scenario>.jsonl`
 * holds the upstream stream, `<scenario>.expected.jsonl` the client chunks the gateway must make
 * of it, ending with one `{"failure": ...}` line when the stream must fail.
 */
export const goldenDirOf = (provider: string): string => NodePath.join(import.meta.dirname, "../fixtures", provider)

export const goldenScenariosIn = (dir: string): Array<string> =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl") && !f.endsWith(".expected.jsonl"))
    .map((f) => f.slice(0, -".jsonl".length))
    .sort()

/** The non-blank lines of a file, as they are (a stream's payloads are served byte for byte). */
export const readLines = (path: string): Array<string> => readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "")

export const readJsonl = (path: string): Array<unknown> => readLines(path).map((line) => JSON.parse(line) as unknown)

/** The last line of a failing scenario: what the client-facing error is made from. */
export const failureLine = (error: GatewayError) => ({
  failure: {
    reason: error.reason._tag,
    ...("kind" in error.reason ? { kind: error.reason.kind } : {}),
    retryable: error.isRetryable,
    message: error.reason.message
  }
})

/**
 * The client chunks the real pipeline makes of a provider's events (usage chunk included), then
 * the failure line if the stream failed. Anything but a typed failure fails the test.
 */
export const clientChunks = (events: Stream.Stream<ChatStreamEvent, GatewayError>, envelope: ChunkEnvelope): Effect.Effect<Array<unknown>> =>
  Effect.gen(function* () {
    const lines: Array<unknown> = []
    const chunks = normalisedChunks(events, envelope, true)
    const exit = yield* Effect.exit(Stream.runForEach(chunks, (chunk) => Effect.sync(() => lines.push(chunk))))
    if (Exit.isSuccess(exit)) return lines
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
    if (failure === undefined || failure._tag !== "Fail") return yield* Effect.die(exit.cause)
    return [...lines, failureLine(failure.error)]
  })

/** Tool-call ids the gateway generates (`call_` + 16 random characters) as `call_#1`, `call_#2`, ... in order. */
export const withStableIds = (chunks: ReadonlyArray<unknown>): Array<unknown> => {
  const ids = new Map<string, string>()
  return JSON.parse(
    JSON.stringify(chunks).replace(/"call_[A-Za-z0-9_-]{16}"/g, (id) => {
      if (!ids.has(id)) ids.set(id, `"call_#${ids.size + 1}"`)
      return ids.get(id)!
    })
  )
}
