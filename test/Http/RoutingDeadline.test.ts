import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * The routing deadline on real adapters: their upstream calls end by themselves at the
 * request's deadline (no watcher fiber), the upstream connection is closed, and the attempt
 * is logged as cancelled rather than held against the provider's health.
 */
// Every adapter kind, not only OpenAI's: the router runs no watcher of its own, so an adapter that
// ignored the deadline it is handed would hold the request past it.
const otherKinds = [
  { kind: "anthropic", path: "/v1" },
  { kind: "gemini", path: "/v1beta" },
  { kind: "openai-compatible", path: "/v1" }
] as const

describe("the routing deadline over HTTP", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      routing: { deadline_ms: 700, attempts_per_model: 3, base_backoff_ms: 1, max_backoff_ms: 5, failure_threshold: 1 },
      providers: [
        { id: "slow", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "k", timeouts: { first_byte_ms: 30_000 } },
        ...otherKinds.map(({ kind, path }) => ({
          id: `slow-${kind}`,
          kind,
          ...(kind === "openai-compatible" ? { profile: "vllm" } : {}),
          base_url: `${upstream.url}${path}`,
          api_key: "k",
          timeouts: { first_byte_ms: 30_000 }
        }))
      ],
      models: [
        { id: "patient", kind: "chat", deployments: [{ provider: "slow", model: "m" }] },
        ...otherKinds.map(({ kind }) => ({ id: `patient-${kind}`, kind: "chat", deployments: [{ provider: `slow-${kind}`, model: "m" }] }))
      ]
    })
  })
  const { upstream } = gw
  const ask = () => gw.postJson("/v1/chat/completions", { model: "patient", messages: [{ role: "user", content: "hi" }] })

  it("answers 504 at the deadline, closes the upstream call and counts the attempt as cancelled", async () => {
    upstream.always({ kind: "hang" })
    const closed = upstream.nextEarlyClose()
    const started = Date.now()
    const res = await ask()
    const elapsed = Date.now() - started
    expect(res.status).toBe(504)
    const body = (await res.json()) as { error: { type: string; message: string } }
    expect(body.error.type).toBe("upstream_error")
    expect(body.error.message).toContain("within 700 ms")
    expect(elapsed).toBeGreaterThanOrEqual(650)
    expect(elapsed).toBeLessThan(3000)
    await closed
    expect(upstream.requests).toHaveLength(1)

    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ status: number; attempts: number }>`SELECT e.status, e.attempts FROM usage_events e
          JOIN api_keys k ON k.seq = e.key_seq WHERE k.id = ${gw.key.keyId}`
      })
    )
    expect(rows).toEqual([{ status: 504, attempts: 1 }])

    // The deadline is not the provider's fault: with failure_threshold 1, one recorded failure
    // would have opened its circuit, and this call would be refused without reaching it.
    upstream.reset()
    upstream.reply({ kind: "json", status: 200, body: { id: "x", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } })
    const again = await ask()
    expect(again.status).toBe(200)
  })

  it.each(otherKinds.map(({ kind }) => kind))("ends a %s call at the deadline too, closing its upstream call", async (kind) => {
    upstream.reset()
    upstream.always({ kind: "hang" })
    const closed = upstream.nextEarlyClose()
    const started = Date.now()
    const res = await gw.postJson("/v1/chat/completions", { model: `patient-${kind}`, messages: [{ role: "user", content: "hi" }] })
    const elapsed = Date.now() - started
    expect(res.status).toBe(504)
    const body = (await res.json()) as { error: { type: string; message: string } }
    expect(body.error.message).toContain("within 700 ms")
    expect(elapsed).toBeGreaterThanOrEqual(650)
    await closed
    expect(upstream.requests).toHaveLength(1)
  })
})
