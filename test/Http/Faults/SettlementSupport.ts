import { Effect } from "effect"
import { Admission } from "../../../src/Services/Billing/Admission.ts"
import { UsageLedger } from "../../../src/Services/Usage/UsageLedger.ts"
import type { FaultStorage } from "../../support/FaultStorage.ts"
import type { TestGateway } from "../../support/TestGateway.ts"
import { hi } from "../BillingSupport.ts"

/** Posts the billing tests' chat request; the status, with the body read. */
export const post = async (gw: { readonly url: string }, secret: string, body: unknown = hi()): Promise<number> => {
  try {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    await res.arrayBuffer()
    return res.status
  } catch {
    return 0
  }
}

export const ledgerStats = (gw: TestGateway) => gw.runtime.runPromise(Effect.flatMap(UsageLedger, (ledger) => ledger.stats))

export const admissionStats = (gw: TestGateway) => gw.runtime.runPromise(Effect.map(Admission, (admission) => ({ ...admission.stats })))

/**
 * Every instance reloads balances and limits now: the credit granted on one is known on the
 * others before traffic starts. Its notice reaches them asynchronously (and a kill may take the
 * listening connection first); an instance that has not heard of it serves the project unbilled
 * until it does, which would count against the ledgers here without being a settlement fault.
 */
export const reloadPolicies = (gws: ReadonlyArray<TestGateway>) =>
  Promise.all(gws.map((gw) => gw.runtime.runPromise(Effect.flatMap(Admission, (admission) => admission.refresh))))

/** The three ledgers of one project, read past the gateway: what must agree to the cent. */
export interface MoneyFigures {
  readonly granted: bigint
  readonly balance: bigint
  /** Settlements in the credit ledger, as a positive amount. */
  readonly settled: bigint
  /** Requests the credit ledger settles (a row may settle a batch of a key's leased requests). */
  readonly settlements: number
  /** Cost of the project's rows in the usage ledger. */
  readonly usage: bigint
  readonly usageRows: number
  readonly held: number
}

/**
 * A query on the test's own connection, tried again if a kill took that connection too (the
 * pool may hold one besides the one the kill ran on).
 */
export const queryAgain = async <A extends object>(storage: FaultStorage, statement: string, params: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<A>> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await storage.query<A>(statement, params)
    } catch (error) {
      if (attempt >= 5) throw error
    }
  }
}

export const moneyOf = async (storage: FaultStorage, projectId: string): Promise<MoneyFigures> => {
  const [row] = await queryAgain<Record<string, string>>(storage,
    `SELECT
      (SELECT coalesce(sum(amount_nano), 0)::text FROM credit_ledger WHERE project_id = $1 AND kind = 'grant') AS granted,
      (SELECT balance_nano::text FROM billing_accounts WHERE project_id = $1) AS balance,
      (SELECT coalesce(sum(-amount_nano), 0)::text FROM credit_ledger WHERE project_id = $1 AND kind = 'settlement') AS settled,
      (SELECT coalesce(sum(coalesce(requests, 1)), 0)::text FROM credit_ledger WHERE project_id = $1 AND kind = 'settlement') AS settlements,
      (SELECT coalesce(sum(u.cost_nano_usd), 0)::text FROM usage_events u JOIN projects p ON p.seq = u.project_seq WHERE p.id = $1) AS usage,
      (SELECT count(*)::text FROM usage_events u JOIN projects p ON p.seq = u.project_seq WHERE p.id = $1 AND u.cost_nano_usd > 0) AS usage_rows,
      (SELECT count(*)::text FROM reservations WHERE project_id = $1) AS held`,
    [projectId]
  )
  return {
    granted: BigInt(row!["granted"]!),
    balance: BigInt(row!["balance"]!),
    settled: BigInt(row!["settled"]!),
    settlements: Number(row!["settlements"]),
    usage: BigInt(row!["usage"]!),
    usageRows: Number(row!["usage_rows"]),
    held: Number(row!["held"])
  }
}

/** Runs `count` calls of `call`, `concurrency` at a time, calling `after(n)` as the n-th one ends. */
export const runConcurrently = async <A>(count: number, concurrency: number, call: (i: number) => Promise<A>, after: (done: number) => Promise<void> = async () => {}): Promise<Array<A>> => {
  const results: Array<A> = []
  let next = 0
  let done = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      results[i] = await call(i)
      await after(++done)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return results
}
