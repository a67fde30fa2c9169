import * as Schema from "effect/Schema"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { ApiKeyView, ApiScope, ProjectView, UserView } from "../../Domain/ApiKey.ts"

/** Request and response bodies of the admin API, as the OpenAPI document shows them. */

// Stored text: no control characters (NUL cannot even be stored by Postgres), bounded length.
const noControl = Schema.isPattern(/^[^\u0000-\u001f\u007f]*$/, { expected: "text without control characters" })
const NonEmptyName = Schema.String.check(Schema.isNonEmpty(), Schema.isMaxLength(200), noControl)

/** The last second of year 9999: every timestamp the database and `Date` can both hold. */
export const maxUnixSeconds = 253_402_300_799
const Timestamp = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: maxUnixSeconds }))

export const CreateProjectBody = Schema.Struct({
  name: NonEmptyName,
  /** Refuse requests whose serving provider would drop one of their fields (translation report). */
  strict_translation: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "CreateProjectBody" })

export const CreateUserBody = Schema.Struct({
  name: NonEmptyName,
  email: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(320), noControl)))
}).annotate({ identifier: "CreateUserBody" })

export const CreateKeyBody = Schema.Struct({
  name: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(200), noControl))),
  user_id: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxLength(200), noControl))),
  /** Omitted: every scope. */
  scopes: Schema.optionalKey(Schema.Array(ApiScope).check(Schema.isMinLength(1))),
  /** Unix seconds; omitted or null: never expires. */
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxUnixSeconds })))),
  /** Refuse this key's requests whose serving provider would drop one of their fields. */
  strict_translation: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "CreateKeyBody" })

/** Turns strict translation on or off for a key or a project. */
export const StrictTranslationBody = Schema.Struct({
  strict_translation: Schema.Boolean
}).annotate({ identifier: "StrictTranslationBody" })

/** Unix seconds in the query string. */
const UnixSeconds = Schema.NumberFromString.pipe(Schema.decodeTo(Timestamp))

export const UsageQuery = {
  from: Schema.optionalKey(UnixSeconds),
  to: Schema.optionalKey(UnixSeconds)
}

export const ProjectIdParams = { project_id: Schema.String }
export const KeyIdParams = { key_id: Schema.String }

const listOf = <S extends Schema.Top>(item: S, identifier: string) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item) }).annotate({ identifier })

export const Project = ProjectView.annotate({ identifier: "Project" })
export const User = UserView.annotate({ identifier: "User" })
export const ApiKey = ApiKeyView.annotate({ identifier: "ApiKey" })
export const ProjectList = listOf(Project, "ProjectList")
export const UserList = listOf(User, "UserList")
export const ApiKeyList = listOf(ApiKey, "ApiKeyList")

export const CreatedKey = Schema.Struct({
  key: ApiKey,
  /** The bearer secret. Returned by this response only; the gateway keeps just its hash. */
  secret: Schema.String
}).annotate({ identifier: "CreatedApiKey" })

const UsageTotalsFields = {
  requests: Schema.Finite,
  prompt_tokens: Schema.Finite,
  completion_tokens: Schema.Finite,
  cached_tokens: Schema.Finite,
  cache_write_tokens: Schema.Finite,
  units: Schema.Finite,
  /** Derived from `cost_nano_usd` by decimal formatting. */
  cost_usd: Schema.Finite,
  /** The exact cost in integer nano-dollars, as a decimal string (sums can pass 2^53). */
  cost_nano_usd: Schema.String.check(Schema.isPattern(/^\d+$/))
}

export const UsageReportBody = Schema.Struct({
  object: Schema.Literal("usage_report"),
  project_id: Schema.String,
  from: Schema.Int,
  to: Schema.Int,
  totals: Schema.Struct(UsageTotalsFields),
  by_model: Schema.Array(Schema.Struct({ model: Schema.NullOr(Schema.String), ...UsageTotalsFields }))
}).annotate({ identifier: "UsageReport" })

/**
 * The gateway's error envelope. Admin handlers never fail with these values: every failure
 * is rendered by src/Http/ErrorResponse.ts. They are declared so the OpenAPI document lists
 * the responses a client must handle.
 */
const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    message: Schema.String,
    type: Schema.String,
    param: Schema.NullOr(Schema.String),
    code: Schema.NullOr(Schema.String)
  })
})

const documented = (status: number, description: string) =>
  ErrorEnvelope.pipe(HttpApiSchema.status(status)).annotate({ description })

export const documentedErrors = [
  documented(400, "invalid_request_error: the body, a path parameter or the query is invalid; `param` names the field"),
  documented(401, "authentication_error: the admin token is missing or wrong"),
  documented(404, "not_found_error: no such project, user or key"),
  documented(413, "invalid_request_error: the body is too large"),
  documented(415, "invalid_request_error: the body is not JSON"),
  documented(500, "internal_server_error: unexpected failure; the message names the request id")
] as const
