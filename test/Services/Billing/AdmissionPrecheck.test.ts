import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Principal } from "../../../src/Domain/ApiKey.ts"
import { GatewayError } from "../../../src/Domain/GatewayError.ts"
import { AdmissionPrecheck, creditDecidesEveryModel, headerCharges } from "../../../src/Services/Billing/AdmissionPrecheck.ts"
import { decodeConfig } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { SlidingWindows } from "../../../src/Services/RateLimits/SlidingWindows.ts"

const principal = { keyId: "key_1", projectId: "proj_1" } as Principal
const refusedError = GatewayError.invalid("refused")
const charges = headerCharges([
  { id: "k:key_1:r", limit: 2, weight: 1 },
  { id: "k:key_1:t", limit: 100, weight: 60 },
  { id: "m:proj_1:gpt", limit: 1, weight: 1 }
])

describe("admission from the headers", () => {
  it("decides for every model: the key's and project's windows, one request and one token", () => {
    expect(charges.map((c) => [c.id, c.weight])).toEqual([["k:key_1:r", 1], ["k:key_1:t", 1]])
  })

  it("asks the windows only for a caller last seen at a limit, and forgets it once there is room", () => {
    const early = new AdmissionPrecheck(false)
    expect(early.remembersAnything()).toBe(false)
    expect(early.mayBeLimited(charges)).toBe(false)
    early.noteStates([{ id: "k:key_1:r", limit: 2, remaining: 0, resetMs: 1 }, { id: "m:proj_1:gpt", limit: 1, remaining: 0, resetMs: 1 }])
    expect(early.mayBeLimited(charges)).toBe(true)
    expect(early.mayBeLimited([{ id: "k:key_2:r", limit: 2, weight: 1 }])).toBe(false)
    expect(early.remembersAnything()).toBe(true)
    early.noteStates([{ id: "k:key_1:r", limit: 2, remaining: 1, resetMs: 1 }])
    expect(early.mayBeLimited(charges)).toBe(false)
    expect(early.remembersAnything()).toBe(false)
    // A model's window is never decided from headers (the model is in the body).
    expect(early.mayBeLimited([{ id: "m:proj_1:gpt", limit: 1, weight: 1 }])).toBe(false)
  })

  it("remembers 'no credit left' briefly, only when no model is free, and forgets it on a reload", () => {
    const broke = new AdmissionPrecheck(true)
    broke.noteCreditRefusal("p:proj_1", 0n, refusedError, 0)
    broke.noteCreditRefusal("k:key_9", 5n, refusedError, 0)
    expect(broke.creditRefusal(principal, 999)).toBe(refusedError)
    expect(broke.creditRefusal({ ...principal, keyId: "key_9", projectId: "proj_9" }, 10)).toBeUndefined()
    expect(broke.creditRefusal(principal, 1_000)).toBeUndefined()
    broke.noteCreditRefusal("p:proj_1", -3n, refusedError, 0)
    broke.forgetCredit()
    expect(broke.creditRefusal(principal, 10)).toBeUndefined()
    const withFreeModels = new AdmissionPrecheck(false)
    withFreeModels.noteCreditRefusal("p:proj_1", 0n, refusedError, 0)
    expect(withFreeModels.creditRefusal(principal, 10)).toBeUndefined()
  })

  it("a catalogue decides credit for every model only when every model costs something", async () => {
    const config = (models: unknown, billing = {}) =>
      Effect.runPromise(decodeConfig("t.yaml", { providers: [{ id: "p", kind: "openai", base_url: "http://127.0.0.1:9" }], models, billing }, {}))
    const model = (id: string, pricing: Record<string, number>) => ({ id, kind: "chat", deployments: [{ provider: "p", model: id }], pricing })
    expect(creditDecidesEveryModel(await config([model("a", { input_per_mtok: 1 }), model("b", { output_per_mtok: 2, input_per_mtok: 0 })]))).toBe(true)
    expect(creditDecidesEveryModel(await config([model("a", { input_per_mtok: 1 }), model("free", {})]))).toBe(false)
    expect(creditDecidesEveryModel(await config([model("a", { input_per_mtok: 1 }), model("free", {})], { require_prices: true }))).toBe(true)
    expect(creditDecidesEveryModel(await config([model("zero", { input_per_mtok: 0, output_per_mtok: 0 })], { require_prices: true }))).toBe(false)
  })

  it("the process's own windows are peeked exactly, without charging", () => {
    const windows = new SlidingWindows()
    windows.acquire([{ id: "k:key_1:r", limit: 2, weight: 1 }, { id: "k:key_1:t", limit: 100, weight: 60 }], "a", 0)
    expect(windows.peek(charges, 1_000).admitted).toBe(true)
    expect(windows.used("k:key_1:r", 1_000)).toBe(1)
    windows.acquire([{ id: "k:key_1:r", limit: 2, weight: 1 }], "b", 2_000)
    expect(windows.peek(charges, 3_000)).toMatchObject({ admitted: false, retryAfterMs: 57_000 })
  })
})
