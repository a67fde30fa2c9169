import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import {
  anthropicLabel,
  anthropicQuestion,
  geminiLogprobs,
  geminiQuestion,
  openAiLogprobs,
  openAiQuestion,
  type Scripted
} from "../support/DecisionFixtures.ts"
import type { RecordedRequest } from "../support/FakeUpstream.ts"
import { useGateway } from "../support/UseGateway.ts"

/** 1 - H(p)/ln(L), written out independently of the gateway's code. */
const entropyConfidence = (p: ReadonlyArray<number>) => 1 + p.reduce((s, x) => s + (x > 0 ? x * Math.log(x) : 0), 0) / Math.log(p.length)
const close = (values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, expect.closeTo(v, 12)]))

// A state large enough (about 1,500 tokens) for providers to cache, with a nested field to name.
const state = { order: { id: "o-17", total: 125, notes: "n".repeat(6000) }, customer: { tier: "gold" } }
const questions = {
  late: { type: "noul", instructions: "Is the order late? Look at order.total and customer.tier.", criteria: { true: "late", false: "on time" } },
  tone: { type: "choice", instructions: "Which tone has the note?", criteria: { friendly: "Warm", neutral: "Plain", hostile: "Angry" } },
  quality: { type: "score", instructions: "How complete is the order?", criteria: ["incomplete", "partial", "complete"] }
}

// The distributions the fake upstreams give, per question; the expected answers are worked out by hand.
const scripted = (question: string): Scripted =>
  question.includes("Is the order late?")
    ? [["Yes", 0.6], [" Yes", 0.1], ["No", 0.2], ["The", 0.05]]
    : question.includes("Which tone")
    ? [["A", 0.5], ["B", 0.3], ["The", 0.15]]
    : [["2", 0.7], ["1", 0.2], ["0", 0.1]]
// tone: C is missing; listed mass 0.95 leaves 0.05, the lowest listed is 0.15, so C's floor is 0.05 / 2.
const toneTotal = 0.5 + 0.3 + 0.025
const expectedAnswers = (method: "logprobs") => ({
  late: { type: "noul", noul: expect.closeTo(0.7 / 0.9, 12), method },
  tone: {
    type: "choice",
    choice: "friendly",
    probabilities: close({ friendly: 0.5 / toneTotal, neutral: 0.3 / toneTotal, hostile: 0.025 / toneTotal }),
    confidence: expect.closeTo(entropyConfidence([0.5 / toneTotal, 0.3 / toneTotal, 0.025 / toneTotal]), 12),
    method
  },
  quality: {
    type: "score",
    score: expect.closeTo(0 * 0.1 + 1 * 0.2 + 2 * 0.7, 12),
    probabilities: close({ "0": 0.1, "1": 0.2, "2": 0.7 }),
    legend: { "0": "incomplete", "1": "partial", "2": "complete" },
    confidence: expect.closeTo(entropyConfidence([0.1, 0.2, 0.7]), 12),
    method
  }
})

describe("POST /v1/decisions", () => {
  const gw = useGateway({
    upstreams: ["openai", "gemini", "anthropic"],
    config: ({ openai, gemini, anthropic }) => ({
      routing: { base_backoff_ms: 1, max_backoff_ms: 5, failure_threshold: 100, attempts_per_model: 1 },
      decisions: { samples: 4, concurrency: 3, max_questions: 4, max_state_bytes: 20_000 },
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" },
        { id: "anthropic", kind: "anthropic", base_url: `${anthropic.url}/v1`, api_key: "a-key" }
      ],
      models: [
        {
          id: "judge-openai",
          kind: "decision",
          deployments: [{ provider: "openai", model: "gpt-4.1-mini" }],
          capabilities: { logprobs: true },
          pricing: { input_per_mtok: 2, cached_input_per_mtok: 0.5, output_per_mtok: 8 }
        },
        { id: "judge-gemini", kind: "decision", deployments: [{ provider: "gemini", model: "gemini-2.0-flash" }], capabilities: { logprobs: true } },
        { id: "judge-claude", kind: "decision", deployments: [{ provider: "anthropic", model: "claude-haiku-4-5" }], decision_method: "sampled" },
        {
          id: "judge-flaky",
          kind: "decision",
          deployments: [{ provider: "openai", model: "broken" }],
          capabilities: { logprobs: true },
          fallbacks: ["judge-gemini"]
        },
        { id: "gpt-chat", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4.1-mini" }] }
      ]
    })
  })
  const { openai, gemini, anthropic } = gw.upstreams
  const post = (body: unknown, key?: string) => gw.postJson("/v1/decisions", body, key === undefined ? {} : { key })
  const bodies = (requests: ReadonlyArray<RecordedRequest>) => requests.map((r) => r.body as any)

  it("OpenAI: one call per question asking for one token's logprobs; the scripted distributions come back as probabilities", async () => {
    const arrivals: Array<number> = []
    openai.always((request) => {
      arrivals.push(Date.now())
      const first = arrivals.length === 1
      return { kind: "json", status: 200, delayMs: first ? 150 : 0, body: openAiLogprobs(scripted(openAiQuestion(request.body)), { prompt: 1600, cached: first ? 0 : 1500 }) }
    })
    const res = await post({ model: "judge-openai", state, questions })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body).toEqual({
      id: expect.stringMatching(/^svc_/),
      model: "judge-openai",
      answers: expectedAnswers("logprobs"),
      usage: { input_tokens: 4800, output_tokens: 3, input_tokens_details: { cached_tokens: 3000 } }
    })
    expect(res.headers.get("x-gateway-provider")).toBe("openai")
    expect(res.headers.get("x-gateway-attempts")).toBe("3")

    const sent = bodies(openai.requests)
    expect(sent).toHaveLength(3)
    for (const request of sent) {
      expect(request).toMatchObject({ model: "gpt-4.1-mini", logprobs: true, top_logprobs: 20, max_completion_tokens: 1, temperature: 1 })
      expect(request.messages).toHaveLength(3)
      // The same prefix, byte for byte: instructions, then the state.
      expect(JSON.stringify(request.messages.slice(0, 2))).toBe(JSON.stringify(sent[0].messages.slice(0, 2)))
    }
    expect(sent[0].messages[0].role).toBe("system")
    expect(sent[0].messages[1].content).toBe(`<state>\n${JSON.stringify(state)}\n</state>`)
    // The state is large enough to cache: the first call runs alone, the others after its answer.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(140)
    // The nested fields the question names are shown with their values.
    const late = sent.map(openAiQuestion).find((q: string) => q.includes("Is the order late?"))!
    expect(late).toContain('order.total = 125\ncustomer.tier = "gold"')
    expect(late).toContain("Yes means: late\nNo means: on time")
  })

  it("bills input tokens only, at the cached price for the cached part", async () => {
    const fresh = await gw.createKey()
    openai.always((request) => ({ kind: "json", status: 200, body: openAiLogprobs(scripted(openAiQuestion(request.body)), { prompt: 1000, cached: 800, completion: 5 }) }))
    const res = await post({ model: "judge-openai", state, questions }, fresh.secret)
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    await new Promise((r) => setTimeout(r, 50))
    const rows = await gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<Record<string, unknown>>`SELECT d.name AS endpoint, e.status, e.prompt_tokens, e.completion_tokens, e.cached_tokens,
            e.cost_nano_usd, e.attempts, m.name AS used_model
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq JOIN usage_endpoints d ON d.id = e.endpoint
          LEFT JOIN usage_labels m ON m.id = e.used_model WHERE k.id = ${fresh.keyId}`
      })
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ endpoint: "decisions", status: 200, prompt_tokens: 3000, completion_tokens: 0, cached_tokens: 2400, attempts: 3, used_model: "judge-openai" })
    // 600 fresh tokens at $2/M and 2400 cached at $0.5/M; the 15 output tokens are not billed.
    expect(Number(rows[0]!["cost_nano_usd"])).toBe(600 * 2000 + 2400 * 500)
  })

  it("Gemini: responseLogprobs with 20 candidates and one output token; the same prefix on every call", async () => {
    gemini.always((request) => ({ kind: "json", status: 200, body: geminiLogprobs(scripted(geminiQuestion(request.body)), { prompt: 1600, cached: 1400 }) }))
    const res = await post({ model: "judge-gemini", state, questions })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.answers).toEqual(expectedAnswers("logprobs"))
    expect(body.usage).toEqual({ input_tokens: 4800, output_tokens: 3, input_tokens_details: { cached_tokens: 4200 } })
    const sent = bodies(gemini.requests)
    expect(sent).toHaveLength(3)
    expect(gemini.requests[0]!.url).toContain("gemini-2.0-flash:generateContent")
    for (const request of sent) {
      expect(request.generationConfig).toEqual({ temperature: 1, maxOutputTokens: 1, responseLogprobs: true, logprobs: 20 })
      expect(request.systemInstruction).toEqual(sent[0].systemInstruction)
      expect(request.contents[0].parts[0]).toEqual({ text: `<state>\n${JSON.stringify(state)}\n</state>` })
    }
  })

  it("Anthropic: samples each question k times at temperature 1, cache_control on the state block, smoothed frequencies", async () => {
    const seen = new Map<string, number>()
    const inFlight: Array<{ start: number; end: number }> = []
    anthropic.always((request) => {
      const question = anthropicQuestion(request.body)
      const n = (seen.get(question) ?? 0) + 1
      seen.set(question, n)
      inFlight.push({ start: Date.now(), end: Date.now() + 200 })
      // late: Yes, Yes, Yes, No; tone: "B" three times and one reply that is no label.
      const text = question.includes("late") ? (n === 4 ? "No" : "Yes") : n === 2 ? "I think" : "B"
      return { kind: "json", status: 200, delayMs: 200, body: anthropicLabel(text, { input: 100, cacheRead: n === 1 ? 0 : 1500, cacheWrite: n === 1 ? 1500 : 0 }) }
    })
    const res = await post({ model: "judge-claude", state, questions: { late: questions.late, tone: questions.tone } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.answers).toEqual({
      late: { type: "noul", noul: expect.closeTo((3 + 0.5) / (4 + 1), 12), method: "sampled" },
      tone: {
        type: "choice",
        choice: "neutral",
        probabilities: close({ friendly: 0.5 / 4.5, neutral: 3.5 / 4.5, hostile: 0.5 / 4.5 }),
        confidence: expect.closeTo(entropyConfidence([0.5 / 4.5, 3.5 / 4.5, 0.5 / 4.5]), 12),
        method: "sampled"
      }
    })
    // 8 calls: 100 fresh tokens each, 1500 written by the first call of each question and read by the rest.
    expect(body.usage).toEqual({ input_tokens: 8 * 1600, output_tokens: 8, input_tokens_details: { cached_tokens: 6 * 1500 } })
    const sent = bodies(anthropic.requests)
    expect(sent).toHaveLength(8)
    for (const request of sent) {
      expect(request).toMatchObject({ model: "claude-haiku-4-5", max_tokens: 1, temperature: 1 })
      expect(request.logprobs).toBeUndefined()
      expect(request.system).toEqual(sent[0].system)
      const [stateBlock, questionBlock] = request.messages[0].content
      expect(request.messages).toHaveLength(1)
      expect(stateBlock).toEqual({ type: "text", text: `<state>\n${JSON.stringify(state)}\n</state>`, cache_control: { type: "ephemeral" } })
      expect(questionBlock.cache_control).toBeUndefined()
    }
    // At most `decisions.concurrency` calls at once, and that many were used.
    const most = Math.max(...inFlight.map((a) => inFlight.filter((b) => b.start <= a.start && a.start < b.end).length))
    expect(most).toBe(3)
  })

  it("falls back to another decision model when every deployment fails", async () => {
    openai.always({ kind: "json", status: 500, body: { error: { message: "boom", type: "server_error" } } })
    gemini.always((request) => ({ kind: "json", status: 200, body: geminiLogprobs(scripted(geminiQuestion(request.body))) }))
    const res = await post({ model: "judge-flaky", state: "short", questions: { late: questions.late } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.model).toBe("judge-flaky")
    expect(body.answers.late.noul).toBeCloseTo(0.7 / 0.9, 12)
    expect(res.headers.get("x-gateway-provider")).toBe("gemini")
    expect(openai.requests).toHaveLength(1)
    expect(gemini.requests).toHaveLength(1)
  })

  it("an upstream answer without the token probabilities asked for is an upstream error, never a guess", async () => {
    openai.always({ kind: "json", status: 200, body: openAiLogprobs([]) })
    const missing = await post({ model: "judge-openai", state: "s", questions: { late: questions.late } })
    expect(missing.status).toBe(502)
    expect(((await missing.json()) as any).error).toMatchObject({ type: "upstream_error", message: expect.stringContaining("no token probabilities") })

    openai.always({ kind: "json", status: 200, body: openAiLogprobs([["The", 0.9], ["I", 0.05]]) })
    const noLabel = await post({ model: "judge-openai", state: "s", questions: { late: questions.late } })
    expect(noLabel.status).toBe(502)
    expect(((await noLabel.json()) as any).error.message).toContain("none of the labels")

    anthropic.always({ kind: "json", status: 200, body: anthropicLabel("Hmm", { input: 10 }) })
    const noSample = await post({ model: "judge-claude", state: "s", questions: { late: questions.late } })
    expect(noSample.status).toBe(502)
    expect(anthropic.requests).toHaveLength(4)
  })

  it("404 not_found_error for an unknown model and for a model that is not a decision model", async () => {
    for (const model of ["nope", "gpt-chat"]) {
      const res = await post({ model, state: "s", questions: { late: questions.late } })
      expect(res.status).toBe(404)
      expect(((await res.json()) as any).error).toMatchObject({ type: "not_found_error", param: "model" })
    }
    expect(openai.requests).toHaveLength(0)
  })

  it("every 400 names its path, limits included, before any upstream call", async () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ model: "judge-openai", questions: { late: questions.late } }, "state"],
      [{ model: "judge-openai", state: "s", questions: { tone: { type: "choice", instructions: "x", criteria: { a: "only" } } } }, "questions.tone.criteria"],
      [{ model: "judge-openai", state: "s", questions: { s: { type: "score", instructions: "x", criteria: ["a", 3] } } }, "questions.s.criteria[1]"],
      [{ model: "judge-openai", state: "s", questions: { q: { type: "noul", instructions: "" } } }, "questions.q.instructions"],
      [{ model: "judge-openai", state: "s", questions: Object.fromEntries(["a", "b", "c", "d", "e"].map((id) => [id, questions.late])) }, "questions"],
      [{ model: "judge-openai", state: "x".repeat(20_001), questions: { late: questions.late } }, "state"],
      [{ model: "judge-openai", state: "s", questions: { late: questions.late }, n: 2 }, "n"]
    ]
    for (const [body, param] of cases) {
      const res = await post(body)
      expect(res.status).toBe(400)
      const error = ((await res.json()) as any).error
      expect({ param: error.param, type: error.type }).toEqual({ param, type: "invalid_request_error" })
      expect(error.message).toContain(param)
    }
    expect(openai.requests).toHaveLength(0)
  })

  it("needs the decisions scope", async () => {
    const chatOnly = await gw.createKey({ scopes: ["chat"] })
    const res = await post({ model: "judge-openai", state: "s", questions: { late: questions.late } }, chatOnly.secret)
    expect(res.status).toBe(403)
  })

  it("the catalogue says which method each decision model uses", async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: gw.auth() })
    const models = ((await res.json()) as any).data as Array<any>
    const method = (id: string) => models.find((m) => m.id === id)?.decision_method
    expect([method("judge-openai"), method("judge-gemini"), method("judge-claude"), method("gpt-chat")]).toEqual(["logprobs", "logprobs", "sampled", undefined])
  })
})
