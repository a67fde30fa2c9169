import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { answerOf, labelsFor } from "../../src/Domain/DecisionAnswer.ts"
import { decisionWorstCaseNanoUsd } from "../../src/Domain/DecisionCost.ts"
import { decisionMethodOf, decisionModelProblem } from "../../src/Domain/DecisionModel.ts"
import { decisionChatRequest, decisionPrefix, maxTopLogprobs, questionText } from "../../src/Domain/DecisionPrompt.ts"
import { decodeDecisionRequest } from "../../src/Domain/DecisionRequest.ts"
import { defaultDecisionSettings } from "../../src/Domain/DecisionSettings.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import { stateReferences } from "../../src/Domain/StateReferences.ts"

const model = (fields: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(ModelConfig)({ id: "judge", kind: "decision", deployments: [{ provider: "p", model: "m" }], ...fields })

const request = Effect.runSync(
  decodeDecisionRequest({
    model: "judge",
    state: { order: { total: 125, items: [{ sku: "X1" }] }, "node.js": 1 },
    questions: {
      big: { type: "noul", instructions: "Is order.total above 100? Compare order.total, not order.items.0.sku.", criteria: { true: "above" } },
      tone: { type: "choice", instructions: "Which tone (see e.g. node.js)?", criteria: { positive: "Friendly", neutral: "" } },
      quality: { type: "score", instructions: "How good?", criteria: ["poor", "fair", "good"] }
    }
  })
)
const [big, tone, quality] = request.questions.map((q) => q.question) as [any, any, any]

describe("stateReferences", () => {
  it("resolves each dotted path the instructions name, once, in order; array indexes by number", () => {
    expect(stateReferences(request.state, big.instructions)).toEqual([
      { path: "order.total", value: 125 },
      { path: "order.items.0.sku", value: "X1" }
    ])
  })
  it("leaves what does not resolve as text, and a string state has no fields", () => {
    expect(stateReferences(request.state, "see e.g. node.js or order.missing or order.items.7")).toEqual([])
    expect(stateReferences("order.total is 3", "Is order.total big?")).toEqual([])
    expect(stateReferences({ a: { b: [10, { c: null }] } }, "a.b.1.c and (a.b).")).toEqual([{ path: "a.b.1.c", value: null }, { path: "a.b", value: [10, { c: null }] }])
  })
})

describe("decision prompts", () => {
  const logprobs = { method: "logprobs", reasoning: false } as const
  const prefix = decisionPrefix(request.stateText)

  it("every question's call starts with the same messages: instructions, then the state", () => {
    const calls = request.questions.map(({ question }) => decisionChatRequest(request, prefix, question, labelsFor(question), logprobs))
    for (const call of calls) {
      expect(call.messages.slice(0, 2)).toEqual(prefix)
      expect(call.sharedPrefix).toBe(2)
      expect(call.messages).toHaveLength(3)
    }
    expect(prefix[1]).toEqual({ role: "user", content: `<state>\n${request.stateText}\n</state>` })
  })

  it("asks for one token with the largest top_logprobs, or samples at temperature 1", () => {
    const call = decisionChatRequest(request, prefix, tone, labelsFor(tone), logprobs)
    expect(call).toMatchObject({ max_completion_tokens: 1, logprobs: true, top_logprobs: maxTopLogprobs, temperature: 1, n: 1, stream: false })
    expect(maxTopLogprobs).toBe(20)
    const sampled = decisionChatRequest(request, prefix, tone, labelsFor(tone), { method: "sampled", reasoning: false })
    expect(sampled).toMatchObject({ max_completion_tokens: 1, temperature: 1 })
    expect(sampled.logprobs).toBeUndefined()
    // A reasoning model needs room to think before its label.
    expect(decisionChatRequest(request, prefix, tone, labelsFor(tone), { method: "sampled", reasoning: true }).max_completion_tokens).toBeUndefined()
  })

  it("labels: Yes/No, letters for options, digits for levels; the question shows them and the fields it names", () => {
    expect(labelsFor(big)).toEqual(["Yes", "No"])
    expect(labelsFor(tone)).toEqual(["A", "B"])
    expect(labelsFor(quality)).toEqual(["0", "1", "2"])
    const text = questionText(big, labelsFor(big), stateReferences(request.state, big.instructions))
    expect(text).toContain("Yes means: above")
    expect(text).not.toContain("No means")
    expect(text).toContain('order.total = 125\norder.items.0.sku = "X1"')
    expect(text.endsWith("Answer Yes or No.")).toBe(true)
    expect(questionText(tone, labelsFor(tone), [])).toContain("A. positive: Friendly\nB. neutral\n")
    expect(questionText(quality, labelsFor(quality), [])).toContain("0: poor\n1: fair\n2: good\n\nAnswer with the number of one level: 0, 1 or 2.")
  })

  it("answers carry the spec's fields", () => {
    expect(answerOf(big, [0.8, 0.2], "logprobs")).toEqual({ type: "noul", noul: 0.8, method: "logprobs" })
    expect(answerOf(tone, [0.25, 0.75], "sampled")).toMatchObject({ type: "choice", choice: "neutral", probabilities: { positive: 0.25, neutral: 0.75 } })
    expect(answerOf(quality, [0, 0.5, 0.5], "logprobs")).toMatchObject({
      type: "score",
      score: 1.5,
      probabilities: { "0": 0, "1": 0.5, "2": 0.5 },
      legend: { "0": "poor", "1": "fair", "2": "good" }
    })
  })
})

describe("decision models", () => {
  it("the method follows the capabilities unless set", () => {
    expect(decisionMethodOf(model({ capabilities: { logprobs: true } }))).toBe("logprobs")
    expect(decisionMethodOf(model({ capabilities: { logprobs: true, reasoning: true } }))).toBe("sampled")
    expect(decisionMethodOf(model())).toBe("sampled")
    expect(decisionMethodOf(model({ capabilities: { logprobs: true }, decision_method: "sampled" }))).toBe("sampled")
  })
  it("logprobs needs a provider and model that return them", () => {
    const all = () => true
    expect(decisionModelProblem(model({ decision_method: "logprobs" }), all)?.field).toBe("decision_method")
    expect(decisionModelProblem(model({ decision_method: "logprobs", capabilities: { logprobs: true, reasoning: true } }), all)?.field).toBe("decision_method")
    expect(decisionModelProblem(model({ decision_method: "logprobs", capabilities: { logprobs: true } }), () => false)?.field).toBe("deployments[0].provider")
    expect(decisionModelProblem(model({ capabilities: { logprobs: true } }), all)).toBeUndefined()
    expect(decisionModelProblem(model({ kind: "chat", decision_method: "sampled" }), all)?.field).toBe("decision_method")
  })
})

describe("decisionWorstCaseNanoUsd", () => {
  it("prices every call's whole prompt as fresh input: questions x samples x tokens x price, no output", () => {
    const priced = (fields: Record<string, unknown>) => model({ pricing: { input_per_mtok: 2, output_per_mtok: 100 }, ...fields })
    const once = decisionWorstCaseNanoUsd(request, priced({ capabilities: { logprobs: true } }), defaultDecisionSettings)
    const sampled = decisionWorstCaseNanoUsd(request, priced({}), defaultDecisionSettings)
    expect(once).toBeGreaterThan(0)
    expect(sampled).toBe(once * defaultDecisionSettings.samples)
    // 2 dollars per million tokens = 2000 nano-dollars per token: the estimate is whole tokens.
    expect(once % 2000).toBe(0)
    const moreState = Effect.runSync(decodeDecisionRequest({ model: "judge", state: "x".repeat(8000), questions: { q: { type: "noul", instructions: "x" } } }))
    expect(decisionWorstCaseNanoUsd(moreState, priced({ capabilities: { logprobs: true } }), defaultDecisionSettings)).toBeGreaterThan(1000 * 2000)
    // A cache write costing more than input is the worst case.
    const writes = decisionWorstCaseNanoUsd(request, priced({ capabilities: { logprobs: true }, pricing: { input_per_mtok: 2, cache_write_per_mtok: 2.5 } }), defaultDecisionSettings)
    expect(writes).toBe(once * 1.25)
  })
})
