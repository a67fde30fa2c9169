import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { usageBounds } from "../../src/Domain/UsageBounds.ts"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { anthropicKit } from "../Providers/AnthropicKit.ts"
import { geminiKit } from "../Providers/GeminiKit.ts"
import { openAiKit } from "../Providers/OpenAiKit.ts"
import type { Reply } from "../support/FakeUpstream.ts"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { validateAgainst } from "../support/OpenApiValidator.ts"
import { parseSse } from "../support/SseClient.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * One usage shape for every provider, in JSON and in the final stream chunk; figures an upstream
 * should never send (12.5, 3e9) and models a client should never send (a NUL byte, 4 KB) reach
 * the ledger as whole, bounded, clean values with every row written; a request no provider
 * served costs nothing and is recorded with the error it got.
 */
const priced = { per_request: 0.5, input_per_mtok: 1, output_per_mtok: 2 }

describe("usage shape and ledger through the real server", () => {
  const gw = useGateway({
    upstreams: ["openai", "anthropic", "gemini", "compat", "cold", "nokey"],
    config: ({ openai, anthropic, gemini, compat, cold, nokey }) => ({
      routing: { max_attempts: 1, attempts_per_model: 1, failure_threshold: 1, cooldown_seconds: 600 },
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-upstream-openai-0001" },
        { id: "anthropic", kind: "anthropic", base_url: `${anthropic.url}/v1`, api_key: "sk-ant-upstream-0001" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "AIza-upstream-gemini-0001" },
        { id: "compat", kind: "openai-compatible", profile: "deepseek", base_url: `${compat.url}/v1`, api_key: "deepseek-key-0001" },
        { id: "cold", kind: "openai", base_url: `${cold.url}/v1`, api_key: "sk-upstream-cold-0001" },
        { id: "nokey", kind: "openai", base_url: `${nokey.url}/v1` }
      ],
      models: [
        { id: "openai", kind: "chat", deployments: [{ provider: "openai", model: "up-model" }], pricing: priced },
        { id: "anthropic", kind: "chat", deployments: [{ provider: "anthropic", model: "up-model" }], pricing: priced },
        { id: "gemini", kind: "chat", deployments: [{ provider: "gemini", model: "up-model" }], pricing: priced },
        { id: "compat", kind: "chat", deployments: [{ provider: "compat", model: "up-model" }], pricing: priced },
        { id: "cold", kind: "chat", deployments: [{ provider: "cold", model: "up-model" }], pricing: priced },
        { id: "nokey", kind: "chat", deployments: [{ provider: "nokey", model: "up-model" }], pricing: priced }
      ]
    })
  })
  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    gw.postJson("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }], ...extra })

  const rowsOf = (requestIds: ReadonlyArray<string>) =>
    gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ request_id: string; requested: string | null; provider: string | null; status: number; prompt_tokens: number; completion_tokens: number; cost_nano_usd: string; detail: unknown }>`
          SELECT e.request_id, m.name AS requested, p.name AS provider, e.status, e.prompt_tokens, e.completion_tokens,
            e.cost_nano_usd::text AS cost_nano_usd, e.detail
          FROM usage_events e LEFT JOIN usage_labels m ON m.id = e.requested_model LEFT JOIN usage_labels p ON p.id = e.provider
          WHERE e.request_id IN ${sql.in(requestIds)} ORDER BY e.occurred_at`
      })
    )
  const detail = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as any

  const compatText: Reply = {
    kind: "json",
    status: 200,
    body: openAiCompletion({ usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_cache_hit_tokens: 4, prompt_cache_miss_tokens: 8 } })
  }
  const cases = [
    { model: "openai", text: openAiKit.text, stream: openAiKit.textStream },
    { model: "anthropic", text: anthropicKit.text, stream: anthropicKit.textStream },
    { model: "gemini", text: geminiKit.text, stream: geminiKit.textStream },
    { model: "compat", text: compatText, stream: { kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) } as Reply }
  ] as const

  for (const { model, text, stream } of cases) {
    it(`${model}: cached_tokens and cache_write_tokens in JSON and in the final stream chunk, valid per OpenAPI`, async () => {
      gw.upstreams[model].reply(text)
      const res = await chat(model)
      expect(res.status).toBe(200)
      const body = (await res.json()) as any
      expect(Object.keys(body.usage.prompt_tokens_details).sort()).toEqual(expect.arrayContaining(["cache_write_tokens", "cached_tokens"]))
      expect(validateAgainst("CreateChatCompletionResponse", body)).toEqual([])

      gw.upstreams[model].reply(stream)
      const streamed = parseSse(await (await chat(model, { stream: true, stream_options: { include_usage: true } })).text())
      const last = streamed.chunks.at(-1)! as any
      expect(last.choices).toEqual([])
      expect(last.usage.prompt_tokens_details).toMatchObject({ cached_tokens: expect.any(Number), cache_write_tokens: expect.any(Number) })
      for (const chunk of streamed.chunks) expect(validateAgainst("CreateChatCompletionStreamResponse", chunk)).toEqual([])
    })
  }

  it("an upstream reporting 12.5 and 3e9 tokens: whole figures to the client, bounded in the ledger, raw kept", async () => {
    gw.upstreams.openai.reply({ kind: "json", status: 200, body: openAiCompletion({ usage: { prompt_tokens: 12.5, completion_tokens: 3e9, total_tokens: 3e9 + 12.5 } }) })
    const res = await chat("openai")
    const body = (await res.json()) as any
    expect(body.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: usageBounds.maxTokens, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } })
    expect(validateAgainst("CreateChatCompletionResponse", body)).toEqual([])
    const [row] = await rowsOf([res.headers.get("x-request-id")!])
    expect(row).toMatchObject({ status: 200, prompt_tokens: 13, completion_tokens: usageBounds.maxTokens })
    expect(detail(row!.detail).raw).toEqual({ prompt_tokens: 12.5, completion_tokens: 3e9 })
    // Priced from the stored figures: 13 × $1/Mtok + 1e8 × $2/Mtok + $0.50.
    expect(row!.cost_nano_usd).toBe(String(13_000 + 200_000_000_000 + 500_000_000))
  })

  it("models with a NUL byte or kilobytes long: every request recorded, cleaned and bounded, nothing refused", async () => {
    const answers = []
    for (const model of ["gpt\u0000evil", "m".repeat(4096), "ok\u001b[2J"]) answers.push(await chat(model))
    gw.upstreams.openai.reply(openAiKit.text)
    answers.push(await chat("openai"))
    for (const res of answers) {
      expect(res.status).toBeLessThan(500)
      await res.arrayBuffer()
    }
    const requestIds = answers.map((r) => r.headers.get("x-request-id")!)
    const rows = await rowsOf(requestIds)
    expect(rows.map((r) => r.request_id).sort()).toEqual([...requestIds].sort())
    for (const row of rows) {
      if (row.requested !== null) {
        expect(row.requested.length).toBeLessThanOrEqual(usageBounds.maxNameLength)
        expect(row.requested).not.toMatch(/[\u0000-\u001f]/)
      }
    }
    const stats = await gw.runtime.runPromise(Effect.flatMap(Effect.service(UsageLedger), (ledger) => ledger.stats))
    expect(stats).toMatchObject({ deadLettered: 0, rejected: 0, dropped: 0, queued: 0 })
  })

  it("a request no provider served costs nothing and is recorded with the error it got", async () => {
    // The first failure opens the circuit (failure_threshold 1); an open circuit is still tried
    // when it is the model's only route, and fails again.
    gw.upstreams.cold.always({ kind: "json", status: 500, body: { error: { message: "boom", type: "server_error" } } })
    const failed = await chat("cold")
    const cooled = await chat("cold")
    expect(failed.status).toBe(502)
    expect(cooled.status).toBe(502)
    // No key configured: the provider turns the gateway away.
    gw.upstreams.nokey.always((request) =>
      request.headers.authorization === undefined
        ? { kind: "json", status: 401, body: { error: { message: "You didn't provide an API key.", type: "invalid_request_error", code: null, param: null } } }
        : openAiKit.text)
    const keyless = await chat("nokey")
    expect(keyless.status).toBe(502)
    const rows = await rowsOf([failed, cooled, keyless].map((r) => r.headers.get("x-request-id")!))
    expect(rows).toHaveLength(3)
    for (const row of rows) expect(row).toMatchObject({ status: 502, provider: null, cost_nano_usd: "0", prompt_tokens: 0, completion_tokens: 0 })
    expect(rows.map((r) => detail(r.detail).error)).toEqual([
      { type: "upstream_error", kind: "server" },
      { type: "upstream_error", kind: "server" },
      { type: "upstream_error", kind: "auth" }
    ])
  })
})
