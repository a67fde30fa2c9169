import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { Effect, Exit, Schema } from "effect"
import { decodeChatRequest } from "../../../src/Domain/ChatRequestDecoder.ts"
import type { ChatRequest } from "../../../src/Domain/ChatRequest.ts"
import { ModelConfig } from "../../../src/Domain/GatewayConfig.ts"
import { GatewayError } from "../../../src/Domain/GatewayError.ts"
import type { ChatTarget } from "../../../src/Providers/ChatProvider.ts"
import { fixturesDir } from "../../support/Fixtures.ts"

/** A validated request, as adapters receive it, from a wire body (model and a user turn filled in). */
export const chatRequest = (body: Record<string, unknown>): ChatRequest =>
  Effect.runSync(decodeChatRequest({ model: "gemini-test", messages: [{ role: "user", content: "hi" }], ...body }))

export const target = (capabilities: Record<string, unknown> = {}): ChatTarget => ({
  upstreamModel: "gemini-2.5-flash",
  model: Schema.decodeUnknownSync(ModelConfig)({
    id: "gemini-test",
    kind: "chat",
    deployments: [{ provider: "gemini", model: "gemini-2.5-flash" }],
    capabilities
  })
})

/** The GatewayError a codec throws; fails the test when it returns normally. */
export const thrown = (f: () => unknown): GatewayError => {
  try {
    f()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error("expected the codec to throw a GatewayError")
}

/** `{ _tag, param, status-ish }` of a codec refusal, for compact assertions. */
export const refusal = (f: () => unknown) => {
  const error = thrown(f)
  return { tag: error.reason._tag, param: "param" in error.reason ? error.reason.param : undefined, message: error.reason.message }
}

interface ManifestEntry {
  readonly path: string
  readonly mime: string
  readonly size_bytes: number
}
const manifest = JSON.parse(readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8")) as {
  readonly files: ReadonlyArray<ManifestEntry>
}

/** A corpus file with its manifest entry and its bytes as base64. */
export const corpus = (path: string): ManifestEntry & { readonly base64: string; readonly extension: string } => {
  const entry = manifest.files.find((f) => f.path === path)
  if (entry === undefined) throw new Error(`fixture ${path} is not in the manifest`)
  const bytes = readFileSync(NodePath.join(fixturesDir, entry.path))
  if (bytes.length !== entry.size_bytes) throw new Error(`fixture ${path} does not match its manifest size`)
  return { ...entry, base64: bytes.toString("base64"), extension: NodePath.extname(entry.path).slice(1) }
}

export const exitError = <A>(exit: Exit.Exit<A, GatewayError>): GatewayError => {
  if (!Exit.isFailure(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return reason.error
}
