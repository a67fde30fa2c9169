import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { checkDecisionLimits, decodeDecisionRequest, type DecisionRequest } from "../../src/Domain/DecisionRequest.ts"
import { DecisionSettings, defaultDecisionSettings } from "../../src/Domain/DecisionSettings.ts"
import { GatewayError } from "../../src/Domain/GatewayError.ts"
import { Schema } from "effect"

const valid = {
  model: "judge",
  state: { order: { total: 125 } },
  questions: {
    late: { type: "noul", instructions: "Is it late?" },
    tone: { type: "choice", instructions: "Which tone?", criteria: { positive: "Friendly", negative: "Hostile" } },
    quality: { type: "score", instructions: "How good?", criteria: ["poor", "fair", "good"] }
  }
}

const decode = (body: Record<string, unknown>) => Effect.runSyncExit(decodeDecisionRequest(body))
const decoded = (body: Record<string, unknown>): DecisionRequest => {
  const exit = decode(body)
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  return exit.value
}
/** The param and message of the 400 a body gets. */
const rejection = (body: Record<string, unknown>) => {
  const exit = decode(body)
  if (Exit.isSuccess(exit)) throw new Error("expected a rejection")
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  if (!(error instanceof GatewayError) || error.reason._tag !== "InvalidRequest") throw new Error(`expected a 400, got ${String(error)}`)
  return { param: error.reason.param, message: error.reason.message }
}
const withQuestion = (id: string, question: unknown) => ({ ...valid, questions: { [id]: question } })

describe("decodeDecisionRequest", () => {
  it("keeps the questions in body order with their typed criteria, and the state as the model reads it", () => {
    const request = decoded(valid)
    expect(request.questions.map((q) => q.id)).toEqual(["late", "tone", "quality"])
    expect(request.questions[1]!.question).toEqual({
      type: "choice",
      instructions: "Which tone?",
      options: [{ key: "positive", description: "Friendly" }, { key: "negative", description: "Hostile" }]
    })
    expect(request.questions[2]!.question).toEqual({ type: "score", instructions: "How good?", levels: ["poor", "fair", "good"] })
    expect(request.questions[0]!.question).toEqual({ type: "noul", instructions: "Is it late?", criteria: {} })
    expect(request.stateText).toBe('{"order":{"total":125}}')
    expect(decoded({ ...valid, state: "plain text" }).stateText).toBe("plain text")
    expect(decoded({ ...valid, state: [1, 2] }).stateText).toBe("[1,2]")
  })

  it("names the path of every violation", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ state: "s", questions: valid.questions }, "model"],
      [{ ...valid, model: 3 }, "model"],
      [{ model: "judge", questions: valid.questions }, "state"],
      [{ ...valid, state: null }, "state"],
      [{ ...valid, state: 42 }, "state"],
      [{ ...valid, state: "   " }, "state"],
      [{ model: "judge", state: "s" }, "questions"],
      [{ ...valid, questions: [] }, "questions"],
      [{ ...valid, questions: {} }, "questions"],
      [{ ...valid, temperature: 0 }, "temperature"],
      [withQuestion("q", "Is it?"), "questions.q"],
      [withQuestion("q", { instructions: "x" }), "questions.q.type"],
      [withQuestion("q", { type: "yesno", instructions: "x" }), "questions.q.type"],
      [withQuestion("q", { type: "noul" }), "questions.q.instructions"],
      [withQuestion("q", { type: "noul", instructions: " " }), "questions.q.instructions"],
      [withQuestion("q", { type: "noul", instructions: "x", criteria: { true: 1 } }), "questions.q.criteria.true"],
      [withQuestion("q", { type: "noul", instructions: "x", criteria: { maybe: "?" } }), "questions.q.criteria.maybe"],
      [withQuestion("q", { type: "noul", instructions: "x", weight: 2 }), "questions.q.weight"],
      [withQuestion("tone", { type: "choice", instructions: "x" }), "questions.tone.criteria"],
      [withQuestion("tone", { type: "choice", instructions: "x", criteria: ["a", "b"] }), "questions.tone.criteria"],
      [withQuestion("tone", { type: "choice", instructions: "x", criteria: { only: "one" } }), "questions.tone.criteria"],
      [withQuestion("tone", { type: "choice", instructions: "x", criteria: { a: "A", b: 2 } }), "questions.tone.criteria.b"],
      [withQuestion("tone", { type: "choice", instructions: "x", criteria: { a: "A", " ": "blank" } }), "questions.tone.criteria"],
      [withQuestion("s", { type: "score", instructions: "x", criteria: ["only"] }), "questions.s.criteria"],
      [withQuestion("s", { type: "score", instructions: "x", criteria: { a: "b" } }), "questions.s.criteria"],
      [withQuestion("s", { type: "score", instructions: "x", criteria: ["low", ""] }), "questions.s.criteria[1]"]
    ]
    for (const [body, param] of cases) {
      const { param: got, message } = rejection(body)
      expect({ body, got }).toEqual({ body, got: param })
      expect(message).toContain(`'${param}'`)
    }
  })

  it("accepts null or partial noul criteria", () => {
    expect(decoded(withQuestion("q", { type: "noul", instructions: "x", criteria: null })).questions[0]!.question).toMatchObject({ criteria: {} })
    expect(decoded(withQuestion("q", { type: "noul", instructions: "x", criteria: { true: "late" } })).questions[0]!.question).toMatchObject({
      criteria: { true: "late" }
    })
  })
})

describe("checkDecisionLimits", () => {
  const settings = Schema.decodeUnknownSync(DecisionSettings)({ max_questions: 2, max_options: 3, max_levels: 4, max_state_bytes: 20 })
  const limited = (body: Record<string, unknown>) => {
    const error = checkDecisionLimits(decoded(body), settings)
    return error?.reason._tag === "InvalidRequest" ? error.reason.param : error
  }

  it("names the path of each limit breached, and the setting", () => {
    expect(limited({ ...valid, state: "s" })).toBe("questions")
    expect(limited({ ...valid, state: "s", questions: { tone: { type: "choice", instructions: "x", criteria: { a: "", b: "", c: "", d: "" } } } })).toBe(
      "questions.tone.criteria"
    )
    expect(limited({ ...valid, state: "s", questions: { s: { type: "score", instructions: "x", criteria: ["1", "2", "3", "4", "5"] } } })).toBe(
      "questions.s.criteria"
    )
    // 7 characters of 3 bytes each: 21 bytes.
    const error = checkDecisionLimits(decoded({ ...valid, state: "€€€€€€€", questions: { q: { type: "noul", instructions: "x" } } }), settings)
    expect(error?.reason).toMatchObject({ param: "state", message: expect.stringContaining("decisions.max_state_bytes") })
    expect(limited({ ...valid, state: "€€€€€€", questions: { q: { type: "noul", instructions: "x" } } })).toBeUndefined()
  })

  it("defaults: 32 questions, 26 options (A-Z), 10 levels (0-9), 256 KiB of state, 8 in flight, 8 samples", () => {
    expect(defaultDecisionSettings).toEqual({
      max_questions: 32,
      max_options: 26,
      max_levels: 10,
      max_state_bytes: 262_144,
      concurrency: 8,
      samples: 8
    })
    // The label alphabets bound the configurable limits.
    expect(() => Schema.decodeUnknownSync(DecisionSettings)({ max_options: 27 })).toThrow()
    expect(() => Schema.decodeUnknownSync(DecisionSettings)({ max_levels: 11 })).toThrow()
  })
})
