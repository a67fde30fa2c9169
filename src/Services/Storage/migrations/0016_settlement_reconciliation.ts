import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Reconciliation (Billing/BillingReconcile.ts) looks for expired holds across every project,
 * and for each asks whether its request was already settled: both by index, so the periodic
 * job costs next to nothing when there is nothing to do.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX reservations_expiry_idx ON reservations (expires_at)`
  yield* sql`CREATE INDEX credit_ledger_settlement_idx ON credit_ledger (request_id) WHERE kind = 'settlement'`
})
