/** What the benchmark sends, and how it recognises a correct answer. */
export type ScenarioName = "chat" | "stream" | "embeddings" | "messages" | "messages-stream" | "responses" | "responses-stream" | "responses-translated"

/** A request as a target gets it. */
export interface ScenarioRequest {
  readonly path: string
  readonly body: string
  readonly headers?: Record<string, string>
  readonly verify: (body: string) => boolean
}

export interface Scenario {
  readonly name: ScenarioName
  readonly path: string
  readonly body: string
  /** Time the first body byte (streams). */
  readonly ttfb: boolean
  readonly verify: (body: string) => boolean
  /** The gateway has no endpoint for it yet: measured for the upstream and floor only. */
  readonly gatewayEndpoint: boolean
  /**
   * Another dialect (Messages, Responses translated): what the gateway targets get instead; the upstream and the floor
   * get the chat call the gateway makes upstream, so the floor stays the same baseline.
   */
  readonly viaGateway?: ScenarioRequest
}

const messages = [
  { role: "system", content: "You are a terse assistant." },
  { role: "user", content: "Say hello in one short sentence." }
]

export const chatModel = "bench-chat"
/** The same fake upstream as an OpenAI-compatible server: Responses requests to it are translated. */
export const compatModel = "bench-compat"
export const holdModel = "bench-hold"

const done = "data: [DONE]\n\n"

export const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "chat",
    path: "/v1/chat/completions",
    body: JSON.stringify({ model: chatModel, messages, max_tokens: 64 }),
    ttfb: false,
    verify: (body) => body.includes('"chat.completion"') && body.includes('"choices"'),
    gatewayEndpoint: true
  },
  {
    name: "stream",
    path: "/v1/chat/completions",
    body: JSON.stringify({ model: chatModel, messages, max_tokens: 64, stream: true, stream_options: { include_usage: true } }),
    ttfb: true,
    // Every frame arrived and the stream ended normally (no error frame).
    verify: (body) => body.endsWith(done) && body.includes("word17") && !body.includes('"stream_error"'),
    gatewayEndpoint: true
  },
  {
    // OpenAI served natively: the same Responses call through the gateway and the floor.
    name: "responses",
    path: "/v1/responses",
    body: JSON.stringify({ model: chatModel, instructions: messages[0]!.content, input: messages[1]!.content, max_output_tokens: 64, store: false }),
    ttfb: false,
    verify: (body) => body.includes('"object":"response"') && body.includes('"output_text"'),
    gatewayEndpoint: true
  },
  {
    name: "responses-stream",
    path: "/v1/responses",
    body: JSON.stringify({ model: chatModel, instructions: messages[0]!.content, input: messages[1]!.content, max_output_tokens: 64, store: false, stream: true }),
    ttfb: true,
    verify: (body) => body.includes("event: response.completed") && body.includes("word17") && !body.includes("response.failed"),
    gatewayEndpoint: true
  },
  {
    // Translated: a Responses request the gateway serves through a compatible server's chat
    // completions; the floor and the upstream get that chat call.
    name: "responses-translated",
    path: "/v1/chat/completions",
    body: JSON.stringify({ model: chatModel, messages, max_tokens: 64 }),
    ttfb: false,
    verify: (body) => body.includes('"chat.completion"') && body.includes('"choices"'),
    gatewayEndpoint: true,
    viaGateway: {
      path: "/v1/responses",
      body: JSON.stringify({ model: compatModel, instructions: messages[0]!.content, input: messages[1]!.content, max_output_tokens: 64, store: false }),
      verify: (body) => body.includes('"object":"response"') && body.includes('"output_text"')
    }
  },
  {
    name: "messages",
    path: "/v1/chat/completions",
    body: JSON.stringify({ model: chatModel, messages, max_tokens: 64 }),
    ttfb: false,
    verify: (body) => body.includes('"chat.completion"'),
    gatewayEndpoint: true,
    viaGateway: {
      path: "/v1/messages",
      body: JSON.stringify({ model: chatModel, system: messages[0]!.content, messages: messages.slice(1), max_tokens: 64 }),
      headers: { "anthropic-version": "2023-06-01" },
      verify: (body) => body.includes('"type":"message"') && body.includes('"stop_reason"')
    }
  },
  {
    name: "messages-stream",
    path: "/v1/chat/completions",
    body: JSON.stringify({ model: chatModel, messages, max_tokens: 64, stream: true, stream_options: { include_usage: true } }),
    ttfb: true,
    verify: (body) => body.endsWith(done) && body.includes("word17"),
    gatewayEndpoint: true,
    viaGateway: {
      path: "/v1/messages",
      body: JSON.stringify({ model: chatModel, system: messages[0]!.content, messages: messages.slice(1), max_tokens: 64, stream: true }),
      headers: { "anthropic-version": "2023-06-01" },
      // Every event arrived and the stream ended normally (no error event).
      verify: (body) => body.includes("word17") && body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n') && !body.includes("event: error")
    }
  },
  {
    name: "embeddings",
    path: "/v1/embeddings",
    body: JSON.stringify({ model: "text-embedding-3-small", input: "The quick brown fox jumps over the lazy dog." }),
    ttfb: false,
    verify: (body) => body.includes('"embedding"'),
    gatewayEndpoint: true
  }
]

/** Content chunks per stream for the per-chunk cost check (each size has its own model). */
export const longStreamSizes: ReadonlyArray<number> = [100, 400, 1600]
const longModel = (chunks: number) => `bench-long-${chunks}`

/** A stream of `chunks` content chunks through the gateway. */
export const longStreamScenario = (chunks: number): Scenario => ({
  name: "stream",
  path: "/v1/chat/completions",
  body: JSON.stringify({ model: longModel(chunks), messages, max_tokens: 64, stream: true }),
  ttfb: false,
  verify: (body) => body.endsWith(done) && body.includes(`word${chunks - 1} `) && !body.includes('"stream_error"'),
  gatewayEndpoint: true
})

/** A stream the fake upstream holds open after three chunks (for the open-streams test). */
export const holdBody = JSON.stringify({ model: holdModel, messages, max_tokens: 64, stream: true })

/**
 * gateway.yaml for the benchmark: two providers on the fake upstream, one of which holds streams.
 * `withMetrics` turns the Prometheus metrics on, `withLimits` gives every key a rate limit it never
 * reaches (so each request goes through the rate-limit check and its settlement), to measure what
 * they cost per request.
 */
export const gatewayConfig = (upstreamPort: number, options: { readonly withMetrics?: boolean; readonly withLimits?: boolean } = {}) => ({
  ...(options.withMetrics === true ? { metrics: { enabled: true } } : {}),
  ...(options.withLimits === true ? { limits: { defaults: { key: { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } } } } : {}),
  providers: [
    { id: "fake-openai", kind: "openai", base_url: `http://127.0.0.1:${upstreamPort}/v1`, api_key: "sk-bench-upstream" },
    { id: "fake-hold", kind: "openai", base_url: `http://127.0.0.1:${upstreamPort}/hold/v1`, api_key: "sk-bench-upstream" },
    { id: "fake-compat", kind: "openai-compatible", profile: "vllm", base_url: `http://127.0.0.1:${upstreamPort}/v1`, api_key: "sk-bench-upstream" },
    ...longStreamSizes.map((n) => ({
      id: `fake-long-${n}`,
      kind: "openai",
      base_url: `http://127.0.0.1:${upstreamPort}/long/${n}/v1`,
      api_key: "sk-bench-upstream"
    }))
  ],
  models: [
    {
      id: chatModel,
      kind: "chat",
      deployments: [{ provider: "fake-openai", model: "gpt-4o-mini" }],
      capabilities: { tools: true, context_length: 128000 },
      pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 }
    },
    {
      id: compatModel,
      kind: "chat",
      deployments: [{ provider: "fake-compat", model: "gpt-4o-mini" }],
      pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 }
    },
    {
      id: holdModel,
      kind: "chat",
      deployments: [{ provider: "fake-hold", model: "gpt-4o-mini" }],
      pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 }
    },
    {
      id: "text-embedding-3-small",
      kind: "embedding",
      deployments: [{ provider: "fake-openai", model: "text-embedding-3-small" }],
      capabilities: { dimensions: 1536 },
      pricing: { input_per_mtok: 0.02 }
    },
    ...longStreamSizes.map((n) => ({
      id: longModel(n),
      kind: "chat",
      deployments: [{ provider: `fake-long-${n}`, model: "gpt-4o-mini" }],
      pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 }
    }))
  ]
})

/** Targets that are not a gateway: the upstream itself, the floor proxy and the bare Effect proxies. */
const isGateway = (name: string): boolean => name !== "direct" && name !== "floor" && !name.startsWith("effect-bare")

/** The request a target gets for a scenario (see `viaGateway`). */
export const requestFor = (target: { readonly name: string }, scenario: Scenario): ScenarioRequest =>
  scenario.viaGateway !== undefined && isGateway(target.name) ? scenario.viaGateway : scenario
