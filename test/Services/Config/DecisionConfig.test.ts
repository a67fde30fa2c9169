import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { decodeConfig } from "../../../src/Services/Config/GatewayConfigLoader.ts"

const decode = (raw: unknown) => Effect.runSyncExit(decodeConfig("gw.yaml", raw, {}))
const problem = (raw: unknown) => {
  const exit = decode(raw)
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  return reason?._tag === "Fail" ? (reason.error as { message: string }).message : "defect"
}
const providers = [
  { id: "openai", kind: "openai", base_url: "https://api.openai.com/v1" },
  { id: "anthropic", kind: "anthropic", base_url: "https://api.anthropic.com/v1" },
  { id: "groq", kind: "openai-compatible", profile: "groq", base_url: "https://api.groq.com/openai/v1" }
]
const judge = (provider: string, fields: Record<string, unknown> = {}) => ({
  id: "judge",
  kind: "decision",
  deployments: [{ provider, model: "m" }],
  ...fields
})

describe("gateway.yaml: decisions", () => {
  it("the decisions block has defaults and limits of its own", () => {
    const exit = decode({})
    if (Exit.isFailure(exit)) throw new Error("decode failed")
    expect(exit.value.decisions).toMatchObject({ max_questions: 32, samples: 8, concurrency: 8 })
    expect(problem({ decisions: { max_options: 30 } })).toMatch(/^gw\.yaml: decisions\.max_options: /)
    expect(problem({ decisions: { samples: 0 } })).toMatch(/^gw\.yaml: decisions\.samples: /)
    expect(problem({ decisions: { colour: 1 } })).toBe("gw.yaml: decisions.colour: unknown key")
  })

  it("decision_method logprobs only where the provider and model return them", () => {
    expect(problem({ providers, models: [judge("openai", { capabilities: { logprobs: true } })] })).toBeUndefined()
    expect(problem({ providers, models: [judge("anthropic")] })).toBeUndefined()
    expect(problem({ providers, models: [judge("anthropic", { decision_method: "logprobs", capabilities: { logprobs: true } })] })).toBe(
      'gw.yaml: models[0].deployments[0].provider: provider "anthropic" returns no token probabilities; set decision_method: sampled'
    )
    expect(problem({ providers, models: [judge("groq", { decision_method: "logprobs", capabilities: { logprobs: true } })] })).toMatch(
      /models\[0\]\.deployments\[0\]\.provider: provider "groq" returns no token probabilities/
    )
    expect(problem({ providers, models: [judge("openai", { decision_method: "logprobs" })] })).toMatch(/models\[0\]\.decision_method: logprobs needs capabilities\.logprobs/)
    expect(problem({ providers, models: [{ ...judge("openai", { decision_method: "sampled" }), kind: "chat" }] })).toBe(
      "gw.yaml: models[0].decision_method: applies only to models of kind decision"
    )
  })
})
