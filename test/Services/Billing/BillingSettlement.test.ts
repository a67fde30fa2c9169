import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ledgerRows, type Settlement } from "../../../src/Services/Billing/BillingSettlement.ts"

const item = (requestId: string, keyId: string, cost: bigint, leaseId?: string): Settlement => ({ projectId: "p", keyId, requestId, cost, leaseId })

describe("the credit ledger's settlement rows", () => {
  it("a request with its own reservation gets its own row; a key's leased requests share one", () => {
    const rows = ledgerRows([
      item("r1", "k1", 5n),
      item("r2", "k1", 7n, "lease:a:k1:0"),
      item("r3", "k2", 11n, "lease:a:k2:0"),
      item("r4", "k1", 13n, "lease:a:k1:0"),
      item("r5", "k2", 17n)
    ])
    expect(rows).toEqual([
      ["k1", "-5", "r1", null],
      ["k2", "-17", "r5", null],
      ["k1", "-20", null, 2],
      ["k2", "-11", "r3", null]
    ])
  })

  // Whatever the mix: the rows sum to the items' cost per key, and settle each request once.
  const Spec = Schema.Struct({
    key: Schema.Literals(["k1", "k2", "k3"]),
    cost: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1e12 })),
    leased: Schema.Boolean
  })
  it.prop("rows settle every request once and sum to its key's cost", { specs: Schema.Array(Spec).check(Schema.isMaxLength(40)) }, ({ specs }) => {
    const items = specs.map((s, i) => item(`r${i}`, s.key, BigInt(s.cost), s.leased ? `lease:a:${s.key}:0` : undefined))
    const rows = ledgerRows(items)
    for (const key of ["k1", "k2", "k3"]) {
      const mine = rows.filter(([k]) => k === key)
      const owed = items.filter((i) => i.keyId === key)
      expect(mine.reduce((sum, [, amount]) => sum - BigInt(amount), 0n)).toBe(owed.reduce((sum, i) => sum + i.cost, 0n))
      expect(mine.reduce((n, [, , , requests]) => n + (requests ?? 1), 0)).toBe(owed.length)
      // A row without a request id settles more than one; every named request is named once.
      expect(mine.every(([, , id, requests]) => (id === null) === (requests !== null && requests > 1))).toBe(true)
      const named = mine.flatMap(([, , id]) => (id === null ? [] : [id]))
      expect(new Set(named).size).toBe(named.length)
    }
  })
})
