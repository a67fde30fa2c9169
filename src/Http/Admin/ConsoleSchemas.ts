import * as Schema from "effect/Schema"

/** Bodies of the admin endpoints the console needs: daily usage, a project's files, the catalogue. */

const Count = Schema.Finite

export const DailyUsageRow = Schema.Struct({
  /** The UTC day, `YYYY-MM-DD`. */
  day: Schema.String,
  /** The model that served; null for requests no model served (refused before routing). */
  model: Schema.NullOr(Schema.String),
  requests: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  units: Count,
  cost_usd: Count,
  /** The exact cost in integer nano-dollars, as a decimal string. */
  cost_nano_usd: Schema.String.check(Schema.isPattern(/^\d+$/))
}).annotate({ identifier: "DailyUsageRow" })

export const DailyUsageBody = Schema.Struct({
  object: Schema.Literal("daily_usage"),
  project_id: Schema.String,
  from: Schema.Int,
  to: Schema.Int,
  data: Schema.Array(DailyUsageRow)
}).annotate({ identifier: "DailyUsage" })

export const AdminFile = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("file"),
  bytes: Schema.Finite,
  created_at: Schema.Int,
  filename: Schema.String,
  purpose: Schema.String,
  status: Schema.String,
  expires_at: Schema.optionalKey(Schema.Int),
  status_details: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AdminFile" })

export const AdminFileList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(AdminFile),
  has_more: Schema.Boolean
}).annotate({ identifier: "AdminFileList" })

export const DeletedFile = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("file"),
  deleted: Schema.Literal(true)
}).annotate({ identifier: "DeletedFile" })

export const FileListQuery = {
  /** 1 to 1000, default 100. */
  limit: Schema.optionalKey(Schema.NumberFromString.pipe(Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))))),
  /** A file id: the page starts after it (newest first). */
  after: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200)))
}

export const FileParams = { project_id: Schema.String, file_id: Schema.String }

const OptionalPrice = Schema.optionalKey(Schema.Finite)

export const CatalogueModel = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  owned_by: Schema.String,
  context_length: Schema.NullOr(Schema.Int),
  max_output_tokens: Schema.NullOr(Schema.Int),
  capabilities: Schema.Record(Schema.String, Schema.Boolean),
  input_modalities: Schema.Array(Schema.String),
  output_modalities: Schema.Array(Schema.String),
  /** USD; token prices per million tokens. */
  pricing: Schema.Struct({
    currency: Schema.Literal("USD"),
    input_per_mtok: OptionalPrice,
    output_per_mtok: OptionalPrice,
    cached_input_per_mtok: OptionalPrice,
    cache_write_per_mtok: OptionalPrice,
    per_image: OptionalPrice,
    per_audio_second: OptionalPrice,
    per_request: OptionalPrice
  })
}).annotate({ identifier: "CatalogueModel" })

export const CatalogueList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(CatalogueModel)
}).annotate({ identifier: "CatalogueList" })
