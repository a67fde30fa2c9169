import * as Schema from "effect/Schema"

/** Money in the admin API is in dollars (JSON numbers read from the exact integer nano-dollars). */
const Usd = Schema.Number

export const SpendPeriod = Schema.Literals(["day", "month", "total"])

export const SpendLimitView = Schema.Struct({
  /** null: the project's own limit. */
  key_id: Schema.NullOr(Schema.String),
  period: SpendPeriod,
  limit_usd: Usd,
  /** Settled in the current period (UTC day or month, or ever). */
  spent_usd: Usd
})

export const RateLimitView = Schema.Struct({
  key_id: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  rpm: Schema.NullOr(Schema.Int),
  tpm: Schema.NullOr(Schema.Int)
})

export const BillingStatusView = Schema.Struct({
  object: Schema.Literal("billing"),
  project_id: Schema.String,
  /** Prepaid credit left; null when the project has no balance (unlimited). */
  balance_usd: Schema.NullOr(Usd),
  /** Held by requests in flight, released or settled when they end. */
  reserved_usd: Usd,
  spend: Schema.Struct({ day_usd: Usd, month_usd: Usd, total_usd: Usd }),
  spend_limits: Schema.Array(SpendLimitView),
  rate_limits: Schema.Array(RateLimitView)
})
export type BillingStatusView = typeof BillingStatusView.Type

export const CreditEntryView = Schema.Struct({
  seq: Schema.Int,
  kind: Schema.Literals(["grant", "settlement", "refund"]),
  /** The change of the balance: positive for grants and refunds, negative for settlements. */
  amount_usd: Usd,
  amount_nano_usd: Schema.String,
  key_id: Schema.NullOr(Schema.String),
  /** The request a settlement settles; null on a row settling a batch of a key's leased requests. */
  request_id: Schema.NullOr(Schema.String),
  /** How many requests a settlement settles (1 with a request id); null on grants and refunds. */
  requests: Schema.NullOr(Schema.Int),
  note: Schema.NullOr(Schema.String),
  /** Who granted it, when the grant said. */
  granted_by: Schema.NullOr(Schema.String),
  created_at: Schema.Int
})
export type CreditEntryView = typeof CreditEntryView.Type

export const CreditLedgerView = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(CreditEntryView),
  /** The balance rebuilt from the ledger (every row from the first grant on), beside the stored one. */
  rebuilt_balance_nano_usd: Schema.NullOr(Schema.String),
  balance_nano_usd: Schema.NullOr(Schema.String)
})
export type CreditLedgerView = typeof CreditLedgerView.Type

/** What `POST /admin/billing/reconcile` did: expired holds settled from the usage ledger, or released. */
export const ReconcileView = Schema.Struct({
  object: Schema.Literal("billing_reconciliation"),
  settled: Schema.Int,
  settled_nano_usd: Schema.String,
  released: Schema.Int
})
export type ReconcileView = typeof ReconcileView.Type
