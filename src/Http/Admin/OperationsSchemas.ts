import * as Schema from "effect/Schema"
import { ApiScope } from "../../Domain/ApiKey.ts"
import { ApiKey } from "./AdminSchemas.ts"

/** Bodies of the console's operational endpoints: overview, per-key usage, request log, key changes, deletions. */

const Count = Schema.Finite
const Nano = Schema.String.check(Schema.isPattern(/^\d+$/))
const noControl = Schema.isPattern(/^[^\u0000-\u001f\u007f]*$/, { expected: "text without control characters" })
const Text = Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(200), noControl)

const summaryFields = {
  requests: Count,
  /** Requests answered with a 4xx or 5xx. */
  errors: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cost_usd: Count,
  /** The exact cost in integer nano-dollars, as a decimal string. */
  cost_nano_usd: Nano
}
export const UsageSummary = Schema.Struct(summaryFields).annotate({ identifier: "UsageSummary" })

export const ProjectOverview = Schema.Struct({
  object: Schema.Literal("project_overview"),
  project_id: Schema.String,
  /** Unix seconds of the start of the current UTC day and month. */
  day_start: Schema.Int,
  month_start: Schema.Int,
  /** From the usage ledger: every metered request, whether or not the project is billed. */
  today: UsageSummary,
  month: UsageSummary,
  /** This month's models by requests, most first (at most 5). */
  top_models: Schema.Array(Schema.Struct({ model: Schema.NullOr(Schema.String), ...summaryFields })),
  billing: Schema.Struct({
    /** Prepaid credit left; null: no balance (unlimited). */
    balance_usd: Schema.NullOr(Count),
    reserved_usd: Count,
    /** The project has a balance or a limit; only then are spend counters kept. */
    billed: Schema.Boolean,
    /** Unix seconds since when spend counters run; null when unknown or not billed. */
    counting_since: Schema.NullOr(Schema.Int),
    /** What spend limits see: settled spend since `counting_since` in this UTC day and month. */
    day_usd: Count,
    month_usd: Count
  })
}).annotate({ identifier: "ProjectOverview" })

export const KeyUsageList = Schema.Struct({
  object: Schema.Literal("key_usage"),
  project_id: Schema.String,
  from: Schema.Int,
  to: Schema.Int,
  data: Schema.Array(Schema.Struct({
    key_id: Schema.String,
    name: Schema.NullOr(Schema.String),
    ...summaryFields,
    last_used_at: Schema.NullOr(Schema.Int)
  }))
}).annotate({ identifier: "KeyUsageList" })

export const RequestLogEntry = Schema.Struct({
  request_id: Schema.String,
  created_at: Schema.Int,
  /** Pass as `before` for the next, older page. */
  cursor: Schema.String,
  key_id: Schema.NullOr(Schema.String),
  key_name: Schema.NullOr(Schema.String),
  endpoint: Schema.String,
  requested_model: Schema.NullOr(Schema.String),
  /** The model that served; null when none did. */
  model: Schema.NullOr(Schema.String),
  provider: Schema.NullOr(Schema.String),
  status: Schema.Int,
  streamed: Schema.Boolean,
  cancelled: Schema.Boolean,
  latency_ms: Count,
  ttft_ms: Schema.NullOr(Count),
  attempts: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  cache_write_tokens: Count,
  units: Count,
  cost_usd: Count,
  cost_nano_usd: Nano,
  error_type: Schema.NullOr(Schema.String),
  error_code: Schema.NullOr(Schema.String),
  /** The request's trace id when traces are exported; null otherwise. */
  trace_id: Schema.NullOr(Schema.String),
  /** Attempts, translation report, estimated usage, raw figures: what was unusual about the request. */
  detail: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "RequestLogEntry" })

export const RequestLogList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(RequestLogEntry),
  has_more: Schema.Boolean
}).annotate({ identifier: "RequestLogList" })

export const RequestLogQuery = {
  /** 1 to 500, default 50. */
  limit: Schema.optionalKey(Schema.NumberFromString.pipe(Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 }))))),
  /** A row's `cursor`: the page starts after it (older rows). */
  before: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^\d{1,17}_\d{1,19}$/, { expected: "a cursor from a previous page" }))),
  key_id: Schema.optionalKey(Text),
  /** The served or the requested model. */
  model: Schema.optionalKey(Text),
  /** `ok` (status below 400) or `error`. */
  outcome: Schema.optionalKey(Schema.Literals(["ok", "error"])),
  /** The error code the client got, e.g. `rate_limit_exceeded`. */
  code: Schema.optionalKey(Text)
}

export const RequestParams = { project_id: Schema.String, request_id: Schema.String }
export const UserIdParams = { user_id: Schema.String }

export const KeyScopesBody = Schema.Struct({
  scopes: Schema.Array(ApiScope).check(Schema.isMinLength(1))
}).annotate({ identifier: "KeyScopesBody" })

export const RotatedKey = Schema.Struct({
  key: ApiKey,
  /** The new bearer secret, shown only in this response; the old one no longer works. */
  secret: Schema.String
}).annotate({ identifier: "RotatedApiKey" })

export const Deleted = Schema.Struct({
  id: Schema.String,
  object: Schema.Literals(["project", "user"]),
  deleted: Schema.Literal(true),
  /** Keys revoked with it. */
  revoked_keys: Schema.Int
}).annotate({ identifier: "Deleted" })
