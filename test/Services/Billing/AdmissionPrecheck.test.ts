import { describe, expect, it } from "@effect/vitest"
import type { Principal } from "../../../src/Domain/ApiKey.ts"
import { GatewayError } from "../../../src/Domain/GatewayError.ts"
import { AdmissionPrecheck, creditDecidesEveryModel, headerCharges } from "../../../src/Services/Billing/AdmissionPrecheck.ts"
import { SlidingWindows } from "../../../src/Services/RateLimits/SlidingWindows.ts"
import { decodeConfig } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { Effect } from "effect"

const principal = { keyId: "key_1", projectId: "proj_1" } as Principal
const refusedError = GatewayError.invalid("refused")

describe("admission from the headers", () => {
  it("remembers a refusal by a request window alone, until its Retry-After", () => {
    const early = new AdmissionPrecheck(false)
    const charges = [{ id: "k:key_1:r", limit: 1, weight: 1 }, { id: "k:key_1:t", limit: 1000, weight: 10 }]
    const decision = {
      admitted: false as const,
      retryAfterMs: 5_000,
      tooLarge: false,
      states: [{ id: "k:key_1:r", limit: 1, remaining: 0, resetMs: 5_000 }, { id: "k:key_1:t", limit: 1000, remaining: 990, resetMs: 5_000 }]
    }
    early.noteRateRefusal(charges, decision, refusedError, 0)
    expect(early.refusal(principal, 4_999)).toBe(refusedError)
    expect(early.refusal({ ...principal, keyId: "key_2" }, 4_999)).toBeUndefined()
    expect(early.refusal(principal, 5_000)).toBeUndefined()
  })

  it("does not remember a refusal whose wait another window decided (a smaller request could fit)", () => {
    const early = new AdmissionPrecheck(false)
    const charges = [{ id: "k:key_1:r", limit: 1, weight: 1 }, { id: "k:key_1:t", limit: 100, weight: 80 }]
    const decision = {
      admitted: false as const,
      retryAfterMs: 30_000,
      tooLarge: false,
      states: [{ id: "k:key_1:r", limit: 1, remaining: 0, resetMs: 1 }, { id: "k:key_1:t", limit: 100, remaining: 50, resetMs: 1 }]
    }
    early.noteRateRefusal(charges, decision, refusedError, 0)
    expect(early.refusal(principal, 1)).toBeUndefined()
    // Token windows and model windows are not decided from headers either.
    early.noteRateRefusal([{ id: "k:key_1:t", limit: 100, weight: 80 }], { ...decision, states: [decision.states[1]!] }, refusedError, 0)
    expect(early.refusal(principal, 1)).toBeUndefined()
  })

  it("remembers 'no credit left' briefly, only when no model is free, and forgets it on a reload", () => {
    const broke = new AdmissionPrecheck(true)
    broke.noteCreditRefusal("p:proj_1", 0n, refusedError, 0)
    broke.noteCreditRefusal("k:key_9", 5n, refusedError, 0)
    expect(broke.refusal(principal, 999)).toBe(refusedError)
    expect(broke.refusal({ ...principal, keyId: "key_9", projectId: "proj_9" }, 10)).toBeUndefined()
    expect(broke.refusal(principal, 1_000)).toBeUndefined()
    broke.noteCreditRefusal("p:proj_1", -3n, refusedError, 0)
    broke.forgetCredit()
    expect(broke.refusal(principal, 10)).toBeUndefined()
    const withFreeModels = new AdmissionPrecheck(false)
    withFreeModels.noteCreditRefusal("p:proj_1", 0n, refusedError, 0)
    expect(withFreeModels.refusal(principal, 10)).toBeUndefined()
  })

  it("a catalogue decides credit for every model only when every model costs something", async () => {
    const config = (models: unknown, billing = {}) => Effect.runPromise(decodeConfig("t.yaml", { providers: [{ id: "p", kind: "openai", base_url: "http://127.0.0.1:9" }], models, billing }, {}))
    const model = (id: string, pricing: Record<string, number>) => ({ id, kind: "chat", deployments: [{ provider: "p", model: id }], pricing })
    expect(creditDecidesEveryModel(await config([model("a", { input_per_mtok: 1 }), model("b", { output_per_mtok: 2, input_per_mtok: 0 })]))).toBe(true)
    expect(creditDecidesEveryModel(await config([model("a", { input_per_mtok: 1 }), model("free", {})]))).toBe(false)
    expect(creditDecidesEveryModel(await config([model("a", { input_per_mtok: 1 }), model("free", {})], { require_prices: true }))).toBe(true)
    expect(creditDecidesEveryModel(await config([model("zero", { input_per_mtok: 0, output_per_mtok: 0 })], { require_prices: true }))).toBe(false)
  })

  it("the process's own windows are peeked exactly, with one request and one token, without charging", () => {
    const windows = new SlidingWindows()
    const charges = headerCharges([
      { id: "k:key_1:r", limit: 2, weight: 1 },
      { id: "k:key_1:t", limit: 100, weight: 60 },
      { id: "m:proj_1:gpt", limit: 1, weight: 1 }
    ])
    expect(charges.map((c) => [c.id, c.weight])).toEqual([["k:key_1:r", 1], ["k:key_1:t", 1]])
    windows.acquire([{ id: "k:key_1:r", limit: 2, weight: 1 }, { id: "k:key_1:t", limit: 100, weight: 60 }], "a", 0)
    expect(windows.peek(charges, 1_000).admitted).toBe(true)
    expect(windows.used("k:key_1:r", 1_000)).toBe(1)
    windows.acquire([{ id: "k:key_1:r", limit: 2, weight: 1 }], "b", 2_000)
    const full = windows.peek(charges, 3_000)
    expect(full).toMatchObject({ admitted: false, retryAfterMs: 57_000 })
  })
})
