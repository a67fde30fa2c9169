import { Redacted } from "effect"
import { anthropicKit } from "../Providers/AnthropicKit.ts"
import { geminiKit } from "../Providers/GeminiKit.ts"
import { openAiKit } from "../Providers/OpenAiKit.ts"
import type { ProviderKit } from "../Providers/ProviderKit.ts"
import type { FakeUpstream } from "./FakeUpstream.ts"
import { openAiResponsesKit } from "./OpenAiResponsesFixtures.ts"

/**
 * One gateway serving a Responses model on each kind of provider: OpenAI (natively, through its
 * own Responses API), Anthropic, Gemini and an OpenAI-compatible profile (groq), each on its own
 * fake upstream speaking that provider's real wire format (the conformance battery's kits,
 * test/Providers/*Kit.ts).
 */
export const responsesUpstreams = ["openai", "anthropic", "gemini", "groq"] as const
export type ResponsesUpstream = (typeof responsesUpstreams)[number]

export interface ResponsesTarget {
  readonly name: ResponsesUpstream
  /** The catalogue id the gateway serves on this provider. */
  readonly model: string
  readonly kit: ProviderKit
}

const groqKit: ProviderKit = {
  ...openAiKit,
  name: "groq",
  config: (baseUrl) => ({ ...openAiKit.config(baseUrl), id: "groq", kind: "openai-compatible", profile: "groq" })
}

export const responsesTargets: ReadonlyArray<ResponsesTarget> = [
  { name: "openai", model: "gpt-r", kit: openAiResponsesKit },
  { name: "anthropic", model: "claude-r", kit: anthropicKit },
  { name: "gemini", model: "gemini-r", kit: geminiKit },
  { name: "groq", model: "groq-r", kit: groqKit }
]

const capabilities = { vision: true, tools: true, structured_output: true, file_input: true, max_output_tokens: 1024 }

/** gateway.yaml for `useGateway({ upstreams: responsesUpstreams, config: responsesConfig })`. */
export const responsesConfig = (upstreams: Readonly<Record<ResponsesUpstream, FakeUpstream>>, extra: Record<string, unknown> = {}) => ({
  server: { keepalive_seconds: 5 },
  providers: responsesTargets.map((t) => {
    const config = t.kit.config(upstreams[t.name].url)
    return { ...config, api_key: config.api_key === undefined ? undefined : Redacted.value(config.api_key) }
  }),
  models: responsesTargets.map((t) => ({
    id: t.model,
    kind: "chat",
    deployments: [{ provider: t.name, model: "up-model" }],
    capabilities,
    pricing: { input_per_mtok: 1, output_per_mtok: 2 }
  })),
  ...extra
})
