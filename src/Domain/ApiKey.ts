import * as Schema from "effect/Schema"

/** One scope per endpoint family. A key carries the scopes it may use. */
export const ApiScope = Schema.Literals([
  "chat",
  "embeddings",
  "audio",
  "images",
  "files",
  "tools",
  "decisions",
  "models"
])
export type ApiScope = typeof ApiScope.Type
export const allScopes: ReadonlyArray<ApiScope> = ApiScope.literals

/** Who is calling: resolved from a bearer key by the authentication middleware. */
export interface Principal {
  readonly keyId: string
  /** Compact numeric ids used by the usage ledger. */
  readonly keySeq: number
  readonly projectSeq: number
  readonly projectId: string
  readonly userId: string | null
  readonly scopes: ReadonlySet<ApiScope>
  /** Unix milliseconds, or null for a key that never expires. */
  readonly expiresAt: number | null
  /** The key or its project is strict: a request whose serving provider would drop a field is refused. */
  readonly strictTranslation?: boolean
}

/** What the admin API and CLI show for a key; never the secret or its hash. */
export const ApiKeyView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("api_key"),
  name: Schema.NullOr(Schema.String),
  project_id: Schema.String,
  user_id: Schema.NullOr(Schema.String),
  scopes: Schema.Array(ApiScope),
  /** The last four characters of the secret, to tell keys apart. */
  hint: Schema.String,
  created_at: Schema.Int,
  expires_at: Schema.NullOr(Schema.Int),
  revoked_at: Schema.NullOr(Schema.Int),
  /** Requests with this key are refused when the serving provider would drop one of their fields. */
  strict_translation: Schema.Boolean
})
export type ApiKeyView = typeof ApiKeyView.Type

export const ProjectView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("project"),
  name: Schema.String,
  created_at: Schema.Int,
  /** Requests of every key of this project are refused when the serving provider would drop one of their fields. */
  strict_translation: Schema.Boolean
})
export type ProjectView = typeof ProjectView.Type

export const UserView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("user"),
  project_id: Schema.String,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  created_at: Schema.Int
})
export type UserView = typeof UserView.Type
