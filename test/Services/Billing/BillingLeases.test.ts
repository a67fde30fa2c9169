import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { Accounts } from "../../../src/Services/Accounts/Accounts.ts"
import { leaseGrant, refusalOf, roomOf } from "../../../src/Services/Billing/BillingDecision.ts"
import { type LeaseAdmission, BillingLeases } from "../../../src/Services/Billing/BillingLeases.ts"
import { settleMany } from "../../../src/Services/Billing/BillingSettlement.ts"
import { credit, lockAccount, readState, transaction } from "../../../src/Services/Billing/BillingStore.ts"
import { type LeaseStore, type LeaseTakeOutcome, postgresLeaseStore } from "../../../src/Services/Billing/LeaseStore.ts"
import { sharedPostgres } from "../../support/SharedPostgres.ts"
import type { TestStorage } from "../../support/TestDatabase.ts"
import { startGateway, type TestGateway } from "../../support/TestGateway.ts"

/**
 * Two instances (two gateways, each with its own connection pool) on one Postgres, each with its
 * own lease manager, spend one project's balance at once. Every admitted request is held in
 * flight until all have been decided, then settles at its full worst case: if the admitted
 * amounts fit the balance, no interleaving of settlements can overspend it. A settlement is two
 * steps, as in the gateway: the hold goes back to the instance's slice at once, and the usage
 * ledger writes it later (`settleMany` with the lease id, lowering the lease by the cost); some
 * are written before the slices are handed back, the rest after.
 */
describe("leases on one Postgres shared by two instances", () => {
  let storage: TestStorage
  let one: TestGateway
  let two: TestGateway
  beforeAll(async () => {
    storage = await sharedPostgres()
    one = await startGateway({ storage })
    two = await startGateway({ storage })
  }, 60_000)
  afterAll(async () => {
    await one?.stop()
    await two?.stop()
    await storage?.cleanup()
  })

  const sqlOf = (gw: TestGateway) => gw.runtime.runPromise(Effect.service(SqlClient.SqlClient))
  const billedProject = async (balance: number) =>
    one.runtime.runPromise(
      Effect.gen(function* () {
        const project = yield* (yield* Accounts).createProject("leases")
        yield* credit(yield* SqlClient.SqlClient, { projectId: project.id, amount: BigInt(balance), kind: "grant", note: null, requestId: null })
        return project.id
      })
    )

  /** What the usage ledger does for leased requests: their settlements in one transaction, each lowering its lease. */
  const writeSettlements = async (projectId: string, items: ReadonlyArray<{ readonly requestId: string; readonly leaseId: string; readonly cost: number }>) => {
    const sql = await sqlOf(one)
    const settlements = items.map((item) => ({ projectId, keyId: "key", requestId: item.requestId, leaseId: item.leaseId, cost: BigInt(item.cost) }))
    await one.runtime.runPromise(transaction(sql, settleMany(sql, settlements, Date.now())))
  }

  const leaseAmounts = async (projectId: string) => {
    const sql = await sqlOf(one)
    const [row] = await one.runtime.runPromise(sql<{ held: string }>`SELECT coalesce(sum(amount_nano), 0)::text AS held FROM reservations WHERE project_id = ${projectId}`)
    return Number(row!.held)
  }

  /**
   * Both instances admit `asks` at once (alternating), then settle every admitted one at its ask
   * and hand everything back; the first `writtenBefore` settlements are written before the
   * hand-back, the others after it.
   */
  const spend = async (stores: readonly [LeaseStore, LeaseStore], projectId: string, asks: ReadonlyArray<number>, writtenBefore = 0) => {
    const scope = Scope.makeUnsafe()
    const now = Date.now()
    const managers = stores.map((store, i) =>
      new BillingLeases(store, { instanceId: `i${i}-${projectId}`, ttlMs: 60_000, minRate: 0, horizonMs: 1_000 }, scope))
    const outcomes = await one.runtime.runPromise(
      Effect.all(asks.map((ask, i) => managers[i % 2]!.admit(projectId, "key", BigInt(ask), now)), { concurrency: "unbounded" })
    )
    const admitted = outcomes.flatMap((o, i) => (o._tag === "Leased" ? [{ o, ask: asks[i]!, requestId: `${projectId}-r${i}` }] : []))
    for (const { o, ask } of admitted) (o as Extract<LeaseAdmission, { _tag: "Leased" }>).settle(BigInt(ask))
    const written = admitted.map(({ o, ask, requestId }) => ({ requestId, leaseId: (o as Extract<LeaseAdmission, { _tag: "Leased" }>).leaseId, cost: ask }))
    await writeSettlements(projectId, written.slice(0, writtenBefore))
    await one.runtime.runPromise(Effect.all(managers.map((m) => m.close(now)), { discard: true }))
    // Handed back: the leases hold exactly the costs not written yet, each counted once.
    const heldAfterClose = await leaseAmounts(projectId)
    await writeSettlements(projectId, written.slice(writtenBefore))
    await one.runtime.runPromise(Scope.close(scope, Exit.void))
    const sql = await sqlOf(one)
    const [row] = await one.runtime.runPromise(sql<{ balance: string; ledger: string; held: string }>`SELECT
        (SELECT balance_nano::text FROM billing_accounts WHERE project_id = ${projectId}) AS balance,
        (SELECT sum(amount_nano)::text FROM credit_ledger WHERE project_id = ${projectId}) AS ledger,
        (SELECT coalesce(sum(amount_nano), 0)::text FROM reservations WHERE project_id = ${projectId}) AS held`)
    return {
      heldAfterClose,
      unwrittenAtClose: written.slice(writtenBefore).reduce((total, w) => total + w.cost, 0),
      admittedSum: admitted.reduce((total, a) => total + a.ask, 0),
      admittedCount: admitted.length,
      directs: outcomes.filter((o) => o._tag === "Direct").length,
      balance: Number(row!.balance),
      ledger: Number(row!.ledger),
      held: Number(row!.held)
    }
  }

  it.effect.prop(
    "the amounts admitted from both instances' leases never exceed the balance, and settling them leaves ledger = balance, nothing held",
    {
      balance: Schema.Int.check(Schema.isBetween({ minimum: 1_000, maximum: 200_000 })),
      asks: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5_000 }))).check(Schema.isMinLength(1), Schema.isMaxLength(40)),
      writtenBefore: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 }))
    },
    ({ balance, asks, writtenBefore }) => Effect.promise(async () => {
      const projectId = await billedProject(balance)
      const stores = [postgresLeaseStore(await sqlOf(one)), postgresLeaseStore(await sqlOf(two))] as const
      const result = await spend(stores, projectId, asks, writtenBefore)
      expect(result.admittedSum).toBeLessThanOrEqual(balance)
      expect(result.directs).toBe(0)
      expect(result.heldAfterClose).toBe(result.unwrittenAtClose)
      expect(result).toMatchObject({ balance: balance - result.admittedSum, ledger: balance - result.admittedSum, held: 0 })
      // Something fits whenever the smallest ask fits the balance alone.
      if (Math.min(...asks) <= balance) expect(result.admittedCount).toBeGreaterThan(0)
    }),
    { arbitrary: { runs: 8 }, timeout: 60_000 }
  )

  /**
   * The same lease manager over a store that grants slices without writing them (no up-front
   * debit): each take sees the whole balance again, and the overspend is caught.
   */
  const withoutDebit = (sql: SqlClient.SqlClient): LeaseStore => {
    return {
      ...postgresLeaseStore(sql),
      take: (input) =>
        transaction(
          sql,
          Effect.gen(function* () {
            const account = yield* lockAccount(sql, input.projectId)
            const state = yield* readState(sql, input.projectId, input.keyId, account!.balance, input.now)
            const granted = leaseGrant(roomOf(state), input.want, input.least)
            if (granted === undefined) return { _tag: "Refused", refusal: refusalOf(state, input.least)! } satisfies LeaseTakeOutcome
            return { _tag: "Granted", granted } satisfies LeaseTakeOutcome
          })
        )
    }
  }

  it("thirty asks of 100 against a balance of 1,000: exactly ten admitted with the debit, an overspend without it", async () => {
    const asks = Array.from({ length: 30 }, () => 100)
    const exact = await spend([postgresLeaseStore(await sqlOf(one)), postgresLeaseStore(await sqlOf(two))], await billedProject(1_000), asks, 4)
    expect(exact).toMatchObject({ admittedSum: 1_000, admittedCount: 10, balance: 0, ledger: 0, held: 0, heldAfterClose: 600, unwrittenAtClose: 600 })
    const broken = await spend([withoutDebit(await sqlOf(one)), withoutDebit(await sqlOf(two))], await billedProject(1_000), asks)
    expect(broken.admittedSum).toBeGreaterThan(1_000)
    expect(broken.balance).toBeLessThan(0)
  })

  it("an instance killed with a lease outstanding: its slice counts until the TTL, then is free for the other", async () => {
    const projectId = await billedProject(1_000)
    const sql = await sqlOf(one)
    const now = Date.now()
    const killedScope = Scope.makeUnsafe()
    const killed = new BillingLeases(postgresLeaseStore(sql), { instanceId: `killed-${projectId}`, ttlMs: 60_000, minRate: 0, horizonMs: 10_000 }, killedScope)
    const first = await one.runtime.runPromise(killed.admit(projectId, "key", 100n, now))
    expect(first._tag).toBe("Leased")
    // Never settled, flushed nor closed: the instance is gone.
    await one.runtime.runPromise(Scope.close(killedScope, Exit.void))
    const [lease] = await one.runtime.runPromise(sql<{ amount: string }>`SELECT amount_nano::text AS amount FROM reservations WHERE project_id = ${projectId}`)
    const slice = Number(lease!.amount)
    expect(slice).toBeGreaterThanOrEqual(100)
    const survivor = new BillingLeases(postgresLeaseStore(await sqlOf(two)), { instanceId: `survivor-${projectId}`, ttlMs: 60_000, minRate: 0, horizonMs: 1_000 }, Scope.makeUnsafe())
    const all = BigInt(1_000 - slice + 1)
    const beforeTtl = await two.runtime.runPromise(survivor.admit(projectId, "key", all, now + 59_999))
    expect(beforeTtl).toMatchObject({ _tag: "Refused", refusal: { which: "balance", available: BigInt(1_000 - slice) } })
    const afterTtl = await two.runtime.runPromise(survivor.admit(projectId, "key", 1_000n, now + 60_000))
    expect(afterTtl._tag).toBe("Leased")
  })
})
