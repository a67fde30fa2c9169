import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type BillingState, periodStart, refusalOf } from "../../../src/Services/Billing/BillingDecision.ts"

const Cost = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5_000 }))
const Step = Schema.Struct({
  /** A new request from key `key` reserving `reserve`, or the completion of the `settle`-th open one. */
  key: Schema.Literals(["a", "b"]),
  reserve: Cost,
  /** The share of its reservation a request actually costs (the provider's usage). */
  usedPercent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  complete: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20 }))
})
const Budget = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40_000 }))

interface Open {
  readonly key: "a" | "b"
  readonly amount: bigint
  readonly cost: bigint
}

/**
 * The book as the database keeps it, driven by the same rule: a balance, a project limit and
 * a limit on key `a`, open reservations, and settlements arriving in any order.
 */
const simulate = (steps: ReadonlyArray<typeof Step.Type>, balance: bigint, projectLimit: bigint, keyLimit: bigint) => {
  let stored = balance
  let spentProject = 0n
  let spentA = 0n
  let settled = 0n
  const open: Array<Open> = []
  const state = (key: "a" | "b"): BillingState => ({
    balance: stored,
    reservedProject: open.reduce((sum, o) => sum + o.amount, 0n),
    reservedKey: open.filter((o) => o.key === key).reduce((sum, o) => sum + o.amount, 0n),
    limits: [
      { scope: "project", period: "month", limit: projectLimit, spent: spentProject },
      ...(key === "a" ? [{ scope: "key" as const, period: "day" as const, limit: keyLimit, spent: spentA }] : [])
    ]
  })
  const settle = (index: number) => {
    const [done] = open.splice(index, 1)
    if (done === undefined) return
    stored -= done.cost
    spentProject += done.cost
    if (done.key === "a") spentA += done.cost
    settled += done.cost
  }
  for (const step of steps) {
    const amount = BigInt(step.reserve)
    if (refusalOf(state(step.key), amount) === undefined) {
      open.push({ key: step.key, amount, cost: (amount * BigInt(step.usedPercent)) / 100n })
    }
    // Any number of requests in flight complete now, in an arbitrary order.
    for (let i = 0; i < step.complete % 3 && open.length > 0; i++) settle((step.complete * 7 + i) % open.length)
    expect(stored).toBeGreaterThanOrEqual(0n)
    expect(spentProject + state("b").reservedProject).toBeLessThanOrEqual(projectLimit)
    expect(spentA + state("a").reservedKey).toBeLessThanOrEqual(keyLimit)
  }
  while (open.length > 0) settle(open.length - 1)
  return { stored, settled, spentProject, spentA }
}

describe("billing decision", () => {
  it.prop(
    "settled spend never exceeds the balance or a limit, and every reservation is returned",
    { steps: Schema.Array(Step).check(Schema.isMaxLength(80)), balance: Budget, projectLimit: Budget, keyLimit: Budget },
    ({ steps, balance, projectLimit, keyLimit }) => {
      const end = simulate(steps, BigInt(balance), BigInt(projectLimit), BigInt(keyLimit))
      expect(end.settled).toBeLessThanOrEqual(BigInt(balance))
      expect(end.spentProject).toBeLessThanOrEqual(BigInt(projectLimit))
      expect(end.spentA).toBeLessThanOrEqual(BigInt(keyLimit))
      // Nothing is held any more: the balance is exactly what was granted minus what settled.
      expect(end.stored).toBe(BigInt(balance) - end.settled)
    }
  )

  it("names what refused: the balance, then the project's limit, then the key's", () => {
    const base: BillingState = { balance: 100n, reservedProject: 30n, reservedKey: 10n, limits: [] }
    expect(refusalOf(base, 70n)).toBeUndefined()
    expect(refusalOf(base, 71n)).toMatchObject({ which: "balance", available: 70n })
    expect(refusalOf({ ...base, balance: null, limits: [{ scope: "project", period: "day", limit: 50n, spent: 15n }] }, 6n)).toMatchObject({ which: "project_limit", period: "day", available: 5n })
    expect(refusalOf({ ...base, balance: null, limits: [{ scope: "key", period: "total", limit: 20n, spent: 5n }] }, 6n)).toMatchObject({ which: "key_limit", available: 5n })
    expect(refusalOf({ ...base, balance: 30n }, 1n)).toMatchObject({ which: "balance", available: 0n })
  })

  it("periods start at UTC midnight and on the first of the month", () => {
    const now = Date.UTC(2026, 10, 25, 21, 30)
    expect(new Date(periodStart("day", now)).toISOString()).toBe("2026-11-25T00:00:00.000Z")
    expect(new Date(periodStart("month", now)).toISOString()).toBe("2026-11-01T00:00:00.000Z")
    expect(periodStart("total", now)).toBe(0)
  })
})
