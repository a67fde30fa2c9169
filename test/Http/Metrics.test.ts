import { describe, expect, it } from "@effect/vitest"
import { openAiCompletion, openAiTextFrames } from "../support/OpenAiFixtures.ts"
import { parseScrape } from "../support/PrometheusText.ts"
import { makeTestStorage } from "../support/TestDatabase.ts"
import { startGateway } from "../support/TestGateway.ts"
import { useGateway } from "../support/UseGateway.ts"

const metricsToken = "metrics-scrape-token-0123"
const upstreamError = { kind: "json", status: 500, body: { error: { message: "boom", type: "server_error", param: null, code: null } } } as const
const ok = (prompt: number, completion: number) =>
  ({ kind: "json", status: 200, body: openAiCompletion({ usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } }) }) as const

describe("GET /metrics after traffic, parsed as Prometheus text", () => {
  const gw = useGateway({
    upstreams: ["primary", "backup", "cold", "limited"],
    config: ({ primary, backup, cold, limited }) => ({
      metrics: { enabled: true, token: metricsToken },
      routing: { max_attempts: 3, attempts_per_model: 2, base_backoff_ms: 1, max_backoff_ms: 2, failure_threshold: 2, cooldown_seconds: 600 },
      providers: [
        { id: "primary", kind: "openai", base_url: `${primary.url}/v1`, api_key: "sk-upstream-primary-01" },
        { id: "backup", kind: "openai", base_url: `${backup.url}/v1`, api_key: "sk-upstream-backup-001" },
        { id: "cold", kind: "openai", base_url: `${cold.url}/v1`, api_key: "sk-upstream-cold-00001" },
        { id: "limited", kind: "openai", base_url: `${limited.url}/v1`, api_key: "sk-upstream-limited-01" }
      ],
      models: [
        { id: "gpt-test", kind: "chat", deployments: [{ provider: "primary", model: "up" }], fallbacks: ["gpt-backup"], pricing: { input_per_mtok: 1, output_per_mtok: 2 } },
        { id: "gpt-backup", kind: "chat", deployments: [{ provider: "backup", model: "up" }], pricing: { input_per_mtok: 1, output_per_mtok: 2 } },
        { id: "cold-model", kind: "chat", deployments: [{ provider: "cold", model: "up" }] },
        { id: "limited-model", kind: "chat", deployments: [{ provider: "limited", model: "up" }] }
      ]
    })
  })
  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    gw.postJson("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }], ...extra })
  const scrape = async (auth: string | null = `Bearer ${metricsToken}`) =>
    fetch(`${gw.url}/metrics`, auth === null ? {} : { headers: { authorization: auth } })

  it("refuses a scrape without the metrics token or with a wrong one", async () => {
    expect((await scrape(null)).status).toBe(401)
    expect((await scrape("Bearer nope")).status).toBe(401)
    const res = await scrape()
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain")
  })

  it("counts requests, attempts by outcome, tokens, cost, streams and refusals", async () => {
    const { primary, backup, cold, limited } = gw.upstreams
    primary.reply(ok(10, 5))
    expect((await chat("gpt-test")).status).toBe(200)
    // Retried on the same route, then fallen back to the next model.
    primary.reply(upstreamError).reply(upstreamError)
    backup.reply(ok(20, 4))
    expect((await chat("gpt-test")).status).toBe(200)
    // Without a fallback the cold route takes all three attempts; its failures open its circuit
    // and the next request finds it cooling down.
    cold.always(upstreamError)
    expect((await chat("cold-model")).status).toBe(502)
    // Its only route is still tried, once, as a trial: one more error.
    expect((await chat("cold-model")).status).toBe(502)
    limited.always({ kind: "json", status: 429, body: { error: { message: "slow down", type: "requests", param: null, code: "rate_limit_exceeded" } } })
    expect((await chat("limited-model")).status).toBe(429)
    backup.reply({ kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) })
    const stream = await chat("gpt-backup", { stream: true })
    expect(stream.status).toBe(200)
    await stream.text()
    expect((await chat("no-such-model")).status).toBe(404)

    // The usage meter counts a request when its scope closes, just after the last byte.
    await expect.poll(async () => parseScrape(await (await scrape()).text()).value("gateway_requests_total")).toBe(7)
    const m = parseScrape(await (await scrape()).text())
    expect(m.type("gateway_requests_total")).toBe("COUNTER")
    expect(m.value("gateway_requests_total", { route: "chat", status: "200", model: "gpt-test" })).toBe(1)
    expect(m.value("gateway_requests_total", { route: "chat", status: "200", model: "gpt-backup" })).toBe(2)
    expect(m.value("gateway_requests_total", { route: "chat", status: "404", model: "other" })).toBe(1)
    expect(m.value("gateway_requests_total", { route: "chat", status: "429", model: "limited-model" })).toBe(1)

    expect(m.value("gateway_upstream_attempts_total", { provider: "primary", outcome: "ok" })).toBe(1)
    expect(m.value("gateway_upstream_attempts_total", { provider: "primary", outcome: "retried" })).toBe(1)
    expect(m.value("gateway_upstream_attempts_total", { provider: "primary", outcome: "fallback" })).toBe(1)
    expect(m.value("gateway_upstream_attempts_total", { provider: "backup", outcome: "ok" })).toBe(2)
    expect(m.value("gateway_upstream_attempts_total", { provider: "cold", outcome: "retried" })).toBe(2)
    expect(m.value("gateway_upstream_attempts_total", { provider: "cold", outcome: "error" })).toBe(2)
    expect(m.value("gateway_upstream_attempts_total", { provider: "cold", outcome: "cooled_down" })).toBe(1)
    expect(m.value("gateway_upstream_attempts_total", { provider: "limited", outcome: "error" })).toBe(1)

    const project = gw.key.projectId
    expect(m.value("gateway_tokens_total", { model: "gpt-test", project, type: "prompt" })).toBe(10)
    expect(m.value("gateway_tokens_total", { model: "gpt-test", project, type: "completion" })).toBe(5)
    // The stream's usage chunk (12 prompt, 3 completion) plus the fallback's 20 and 4.
    expect(m.value("gateway_tokens_total", { model: "gpt-backup", project, type: "prompt" })).toBe(32)
    // 10 prompt at $1 and 5 completion at $2 per million tokens.
    expect(m.value("gateway_cost_usd_total", { model: "gpt-test", project })).toBeCloseTo(0.00002, 12)

    expect(m.type("gateway_request_duration_seconds")).toBe("HISTOGRAM")
    expect(m.count("gateway_request_duration_seconds", { route: "chat" })).toBe(7)
    const buckets = m.buckets("gateway_request_duration_seconds", { route: "chat", model: "gpt-test" })
    expect(buckets.at(-1)).toEqual(["+Inf", 1])
    expect(buckets.map(([, n]) => n)).toEqual([...buckets.map(([, n]) => n)].sort((a, b) => a - b))
    expect(m.count("gateway_time_to_first_token_seconds", { model: "gpt-backup" })).toBe(1)
    expect(m.value("gateway_open_streams")).toBe(0)
    expect(m.value("gateway_requests_in_flight")).toBe(0)
    expect(m.value("gateway_refusals_total", { route: "chat", reason: "rate_limit" })).toBe(1)
    expect(m.value("gateway_usage_ledger_queue_depth")).toBeGreaterThanOrEqual(0)
    expect(m.value("gateway_usage_ledger_flush_failures_total")).toBe(0)
    expect(m.value("process_resident_memory_bytes")).toBeGreaterThan(10_000_000)

    // Bounded labels: no key, user or request id anywhere.
    const labelNames = new Set<string>()
    for (const family of m.families.values()) {
      if (!family.name.startsWith("gateway_")) continue
      for (const sample of family.metrics) {
        for (const [name, value] of Object.entries(sample.labels ?? {})) {
          if (name === "le") continue
          labelNames.add(name)
          expect(value).not.toMatch(/^(key_|req_|user_)/)
        }
      }
    }
    expect([...labelNames].sort()).toEqual(["model", "outcome", "project", "provider", "reason", "route", "status", "type"])
  })

  it("shows an open stream while it is being sent", async () => {
    gw.upstreams.backup.reply({ kind: "sse", frames: openAiTextFrames(["a"]).slice(0, 2), hangAfter: true })
    const res = await chat("gpt-backup", { stream: true })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    await reader.read()
    expect(parseScrape(await (await scrape()).text()).value("gateway_open_streams")).toBe(1)
    await reader.cancel()
    await expect.poll(async () => parseScrape(await (await scrape()).text()).value("gateway_open_streams")).toBe(0)
  })
})

describe("metrics and the console switched off", () => {
  it("serves no /metrics by default, and no console without the admin token", async () => {
    const storage = await makeTestStorage()
    const gw = await startGateway({ storage })
    try {
      for (const path of ["/metrics", "/console", "/console/js/app.js", "/console/session"]) {
        expect((await fetch(`${gw.url}${path}`)).status, path).toBe(404)
      }
    } finally {
      await gw.stop()
      await storage.cleanup()
    }
  })
})
