import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Accounts } from "../../../src/Services/Accounts/Accounts.ts"
import { setSpendLimit } from "../../../src/Services/Billing/BillingAdminStore.ts"
import { credit, reserve, settle } from "../../../src/Services/Billing/BillingStore.ts"
import { useGateway } from "../../support/UseGateway.ts"

const Request = Schema.Struct({
  key: Schema.Literals(["key_a", "key_b"]),
  amount: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5_000 })),
  usedPercent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  /** Where it lands in the completion order. */
  order: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000 }))
})
const Budget = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 20_000 }))

/**
 * The database store itself under concurrency: every request reserves at once (so only the
 * row lock orders them), then all settle at once in a random order.
 */
describe("billing store under concurrent reservations", () => {
  const gw = useGateway({ key: false })

  it.effect.prop(
    "the admitted reservations fit the balance and limits, settlement returns every one, and the figures agree",
    { requests: Schema.Array(Request).check(Schema.isMinLength(1), Schema.isMaxLength(16)), balance: Budget, projectLimit: Budget, keyLimit: Budget },
    ({ requests, balance, projectLimit, keyLimit }) =>
      Effect.promise(() =>
        gw.runtime.runPromise(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const project = yield* (yield* Accounts).createProject("prop")
            const now = Date.now()
            yield* credit(sql, { projectId: project.id, amount: BigInt(balance), kind: "grant", note: null, requestId: null })
            yield* setSpendLimit(sql, { projectId: project.id, keyId: "", period: "month", limit: BigInt(projectLimit) })
            yield* setSpendLimit(sql, { projectId: project.id, keyId: "key_a", period: "day", limit: BigInt(keyLimit) })
            const ids = requests.map((_, i) => `${project.id}-r${i}`)
            const outcomes = yield* Effect.all(
              requests.map((r, i) =>
                reserve(sql, { projectId: project.id, keyId: r.key, reservationId: ids[i]!, amount: BigInt(r.amount), ttlMs: 60_000, now })),
              { concurrency: "unbounded" }
            )
            const admitted = requests.flatMap((r, i) => (outcomes[i]!._tag === "Reserved" ? [{ ...r, id: ids[i]! }] : []))
            const sum = (list: ReadonlyArray<{ amount: number }>) => list.reduce((total, r) => total + r.amount, 0)
            expect(sum(admitted)).toBeLessThanOrEqual(Math.min(balance, projectLimit))
            expect(sum(admitted.filter((r) => r.key === "key_a"))).toBeLessThanOrEqual(keyLimit)
            // Refused only when it did not fit at some moment: at least the largest fitting set is not empty when one fits alone.
            if (requests.some((r) => r.amount <= Math.min(balance, projectLimit) && (r.key === "key_b" || r.amount <= keyLimit))) {
              expect(admitted.length).toBeGreaterThan(0)
            }
            const costs = admitted.map((r) => Math.floor((r.amount * r.usedPercent) / 100))
            yield* Effect.all(
              [...admitted.keys()].sort((a, b) => admitted[a]!.order - admitted[b]!.order).map((i) =>
                settle(sql, { projectId: project.id, keyId: admitted[i]!.key, reservationId: admitted[i]!.id, cost: BigInt(costs[i]!), requestId: admitted[i]!.id, now })),
              { concurrency: "unbounded" }
            )
            const settled = costs.reduce((a, b) => a + b, 0)
            const [row] = yield* sql<{ balance: string; held: string; ledger: string }>`SELECT
                (SELECT balance_nano::text FROM billing_accounts WHERE project_id = ${project.id}) AS balance,
                (SELECT count(*)::text FROM reservations WHERE project_id = ${project.id}) AS held,
                (SELECT sum(amount_nano)::text FROM credit_ledger WHERE project_id = ${project.id}) AS ledger`
            expect(row).toEqual({ balance: String(balance - settled), held: "0", ledger: String(balance - settled) })
            const counters = yield* sql<{ key_id: string; period: string; spent: string }>`SELECT key_id, period, spent_nano::text AS spent
              FROM spend_counters WHERE project_id = ${project.id} AND key_id = '' ORDER BY period`
            if (settled > 0) expect(counters.map((c) => c.spent)).toEqual([String(settled), String(settled), String(settled)])
          })
        )
      ),
    { arbitrary: { runs: 12 } }
  )

  it("the credit ledger is append-only in the database", async () => {
    const refused = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const project = yield* (yield* Accounts).createProject("ledger")
        yield* credit(sql, { projectId: project.id, amount: 5n, kind: "grant", note: null, requestId: null })
        const update = yield* Effect.result(sql`UPDATE credit_ledger SET amount_nano = 6 WHERE project_id = ${project.id}`)
        const remove = yield* Effect.result(sql`DELETE FROM credit_ledger WHERE project_id = ${project.id}`)
        const [row] = yield* sql<{ amount: string }>`SELECT amount_nano::text AS amount FROM credit_ledger WHERE project_id = ${project.id}`
        return { update: update._tag, remove: remove._tag, amount: row?.amount }
      })
    )
    expect(refused).toEqual({ update: "Failure", remove: "Failure", amount: "5" })
  })

  it("a reservation never settled (its instance crashed) stops counting once it expires", async () => {
    const outcomes = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const project = yield* (yield* Accounts).createProject("crashed")
        yield* credit(sql, { projectId: project.id, amount: 100n, kind: "grant", note: null, requestId: null })
        const now = Date.now()
        const hold = (id: string, at: number) => reserve(sql, { projectId: project.id, keyId: "k", reservationId: `${project.id}-${id}`, amount: 80n, ttlMs: 60_000, now: at })
        const first = yield* hold("lost", now)
        const whileHeld = yield* hold("second", now + 59_000)
        const afterExpiry = yield* hold("third", now + 60_001)
        return [first._tag, whileHeld._tag, afterExpiry._tag]
      })
    )
    expect(outcomes).toEqual(["Reserved", "Refused", "Reserved"])
  })
})
