import * as Schema from "effect/Schema"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { BillingStatusView, CreditLedgerView, ReconcileView, SpendPeriod } from "../../Domain/BillingView.ts"
import { ProjectIdParams } from "./AdminSchemas.ts"

const noControl = Schema.isPattern(/^[^\u0000-\u001f\u007f]*$/, { expected: "text without control characters" })
const Id = Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(200), noControl)
const Usd = Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1_000_000_000))
const PerMinute = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 }))

export const CreditBody = Schema.Struct({
  /** Dollars added to the balance (a project without a balance starts from zero). */
  amount_usd: Usd,
  /** `grant` (default) or `refund` (credit given back, e.g. for a failed request). */
  kind: Schema.optionalKey(Schema.Literals(["grant", "refund"])),
  note: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(500), noControl)),
  request_id: Schema.optionalKey(Id),
  /** Who granted it: a name or an email, shown in the credit ledger. */
  granted_by: Schema.optionalKey(Id)
}).annotate({ identifier: "CreditBody" })

export const SpendLimitBody = Schema.Struct({
  period: SpendPeriod,
  /** null clears the limit. */
  limit_usd: Schema.NullOr(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(1_000_000_000))),
  /** A key of the project; omitted: the project's own limit. */
  key_id: Schema.optionalKey(Id)
}).annotate({ identifier: "SpendLimitBody" })

export const RateLimitBody = Schema.Struct({
  /** Requests per minute; null: none; omitted: unchanged (none for a new limit). Both none removes the limit. */
  rpm: Schema.optionalKey(Schema.NullOr(PerMinute)),
  /** Tokens per minute (prompt plus the output cap at admission, corrected when the call ends); null: none; omitted: unchanged. */
  tpm: Schema.optionalKey(Schema.NullOr(PerMinute)),
  /** A key of the project, or a model id for the project's limit on that model; omitted: the project's own limit. */
  key_id: Schema.optionalKey(Id),
  model: Schema.optionalKey(Id)
}).annotate({ identifier: "RateLimitBody" })

const LedgerQuery = { limit: Schema.optionalKey(Schema.NumberFromString.pipe(Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))))) }

const Status = BillingStatusView.annotate({ identifier: "BillingStatus" })

export const billingGroup = HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.get("getBilling", "/projects/:project_id/billing", { params: ProjectIdParams, success: Status })
      .annotate(OpenApi.Summary, "A project's balance, spend, reservations and limits"),
    HttpApiEndpoint.post("addCredit", "/projects/:project_id/credits", { params: ProjectIdParams, payload: CreditBody, success: Status })
      .annotate(OpenApi.Summary, "Grant or refund credit")
      .annotate(OpenApi.Description, "Adds to the prepaid balance; one row in the credit ledger. A project without a balance is unlimited."),
    HttpApiEndpoint.get("listCredits", "/projects/:project_id/credits", { params: ProjectIdParams, query: LedgerQuery, success: CreditLedgerView.annotate({ identifier: "CreditLedger" }) })
      .annotate(OpenApi.Summary, "The credit ledger")
      .annotate(OpenApi.Description, "Newest first (`limit`, default 100): grants, settlements and refunds, with the balance rebuilt from the ledger."),
    HttpApiEndpoint.post("setSpendLimit", "/projects/:project_id/spend-limits", { params: ProjectIdParams, payload: SpendLimitBody, success: Status })
      .annotate(OpenApi.Summary, "Set or clear a spend limit of the project or one of its keys"),
    HttpApiEndpoint.post("setRateLimit", "/projects/:project_id/rate-limits", { params: ProjectIdParams, payload: RateLimitBody, success: Status })
      .annotate(OpenApi.Summary, "Set or clear RPM/TPM of the project, one of its keys, or one model in the project"),
    HttpApiEndpoint.post("reconcileBilling", "/billing/reconcile", { success: ReconcileView.annotate({ identifier: "BillingReconciliation" }) })
      .annotate(OpenApi.Summary, "Close expired holds now")
      .annotate(OpenApi.Description, "Holds that outlived billing.reservation_ttl_seconds without a settlement: settled from the usage ledger when the request has a usage row, else released. Every instance also does this once a minute.")
  )
  .annotate(OpenApi.Description, "Credit balances, spend limits and rate limits, enforced before any upstream call (402 and 429).")
