import { createHash, hash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import { type ApiKeyView, type ApiScope, allScopes, type Principal } from "../../Domain/ApiKey.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { Accounts } from "./Accounts.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { storageGuard } from "../Storage/StorageGuard.ts"
import { announceRevocation, forget } from "./RevocationNotice.ts"

interface KeyRow {
  readonly id: string
  readonly seq: number
  readonly name: string | null
  readonly hint: string
  readonly project_id: string
  readonly project_seq: number
  readonly user_id: string | null
  readonly scopes: ReadonlyArray<string>
  readonly created_at: number
  readonly expires_at: number | null
  readonly revoked_at: number | null
  readonly strict_translation: boolean
  readonly project_strict_translation: boolean
}

const view = (row: KeyRow): ApiKeyView => ({
  id: row.id,
  object: "api_key",
  name: row.name,
  project_id: row.project_id,
  user_id: row.user_id,
  scopes: row.scopes.filter((s): s is ApiScope => (allScopes as ReadonlyArray<string>).includes(s)),
  hint: row.hint,
  created_at: Math.floor(row.created_at),
  expires_at: row.expires_at === null ? null : Math.floor(row.expires_at),
  revoked_at: row.revoked_at === null ? null : Math.floor(row.revoked_at),
  strict_translation: row.strict_translation
})

/** Keys are high-entropy random strings, so a plain SHA-256 is a sufficient one-way hash. */
export const hashSecret = (secret: string): Buffer => createHash("sha256").update(secret).digest()

type Verdict =
  | { readonly _tag: "Valid"; readonly principal: Principal }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Revoked" }

const keyColumns = (sql: SqlClient.SqlClient) => sql`k.id, k.seq, k.name, k.hint, k.project_id, p.seq AS project_seq, k.user_id,
  k.scopes, extract(epoch from k.created_at)::float8 AS created_at,
  extract(epoch from k.expires_at)::float8 AS expires_at, extract(epoch from k.revoked_at)::float8 AS revoked_at,
  k.strict_translation, p.strict_translation AS project_strict_translation`

export interface CreateKeyInput {
  readonly projectId: string
  readonly userId?: string | undefined
  readonly name?: string | undefined
  readonly scopes?: ReadonlyArray<ApiScope> | undefined
  /** Unix seconds. */
  readonly expiresAt?: number | undefined
  readonly strictTranslation?: boolean | undefined
}

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    /** Returns the secret exactly once; only its hash is stored. */
    readonly create: (input: CreateKeyInput) => Effect.Effect<{ readonly key: ApiKeyView; readonly secret: string }, GatewayError>
    readonly list: (projectId: string) => Effect.Effect<ReadonlyArray<ApiKeyView>, GatewayError>
    readonly revoke: (id: string) => Effect.Effect<ApiKeyView, GatewayError>
    /** Replaces a key's scopes; every instance applies them within a second (see `KeyRevocations`). */
    readonly setScopes: (id: string, scopes: ReadonlyArray<ApiScope>) => Effect.Effect<ApiKeyView, GatewayError>
    /** A new secret for the same key (id, scopes, limits and usage kept); the old secret stops working at once. */
    readonly rotate: (id: string) => Effect.Effect<{ readonly key: ApiKeyView; readonly secret: string }, GatewayError>
    /** Revokes every live key of a project or of a user (when either is deleted); returns how many. */
    readonly revokeAll: (owner: { readonly projectId: string } | { readonly userId: string }) => Effect.Effect<number, GatewayError>
    /** Strict translation for one key; this instance applies it at once, others within `auth.cache_ttl_seconds`. */
    readonly setStrict: (id: string, strict: boolean) => Effect.Effect<ApiKeyView, GatewayError>
    /**
     * Bearer secret -> principal, or 401. Cached for `auth.cache_ttl_seconds`, and past that while
     * the database is unreachable; an unknown key then gets a 503.
     */
    readonly verify: (secret: string) => Effect.Effect<Principal, GatewayError>
    /** Forgets the cached verdicts of one key (by id), or of every key; see `KeyRevocations`. */
    readonly invalidate: (keyId: string | undefined) => void
  }
>()("gateway/ApiKeys") {
  static readonly layer = Layer.effect(
    ApiKeys,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const accounts = yield* Accounts
      const { config } = yield* GatewayConfigFile
      const ttlMs = config.auth.cache_ttl_seconds * 1000
      // A key already verified keeps working while the database is away (it is cached); a new
      // one gets a 503 with Retry-After instead of a 500.
      const guard = storageGuard(config.resilience)
      const spans = yield* optionalSpans
      // Bounded so a flood of random keys cannot grow memory without limit.
      const cache = new Map<string, { readonly verdict: Verdict; readonly until: number }>()
      const maxEntries = 50_000

      const lookup = (digest: Buffer) =>
        sql<KeyRow>`SELECT ${keyColumns(sql)} FROM api_keys k JOIN projects p ON p.id = k.project_id
          WHERE k.secret_sha256 = ${digest}`.pipe(
          guard,
          Effect.map((rows): Verdict => {
            const row = rows[0]
            if (row === undefined) return { _tag: "Unknown" }
            if (row.revoked_at !== null) return { _tag: "Revoked" }
            return {
              _tag: "Valid",
              principal: {
                keyId: row.id,
                keySeq: row.seq,
                projectId: row.project_id,
                projectSeq: row.project_seq,
                userId: row.user_id,
                scopes: new Set(view(row).scopes),
                expiresAt: row.expires_at === null ? null : row.expires_at * 1000,
                ...(row.strict_translation || row.project_strict_translation ? { strictTranslation: true } : {})
              }
            }
          })
        )

      const judge = (verdict: Verdict, now: number): Effect.Effect<Principal, GatewayError> => {
        switch (verdict._tag) {
          case "Unknown":
            return Effect.fail(GatewayError.unauthenticated("Incorrect API key provided.", "invalid_api_key"))
          case "Revoked":
            return Effect.fail(GatewayError.unauthenticated("This API key has been revoked.", "api_key_revoked"))
          case "Valid":
            if (verdict.principal.expiresAt !== null && verdict.principal.expiresAt <= now) {
              return Effect.fail(GatewayError.unauthenticated("This API key has expired.", "api_key_expired"))
            }
            return Effect.succeed(verdict.principal)
        }
      }

      // Every request passes here: a cache hit is one hash and one map lookup, no database.
      const verifyAt = (secret: string, now: number): Effect.Effect<Principal, GatewayError> => {
        const cacheKey = hash("sha256", secret, "base64")
        const cached = cache.get(cacheKey)
        if (cached !== undefined && cached.until > now) return judge(cached.verdict, now)
        const fresh = Effect.flatMap(lookup(Buffer.from(cacheKey, "base64")), (verdict) => {
          if (ttlMs > 0) {
            if (cache.size >= maxEntries) cache.clear()
            cache.set(cacheKey, { verdict, until: now + ttlMs })
          }
          return judge(verdict, now)
        })
        // While the database is away, a key seen before keeps its last verdict: it could not be
        // revoked meanwhile anyway, and its requests need nothing else from the database.
        return cached === undefined
          ? fresh
          : Effect.catchIf(fresh, (error) => error.reason._tag === "ServiceUnavailable", () => judge(cached.verdict, now))
      }
      const verify = (secret: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => verifyAt(secret, now)).pipe(spans.span("ApiKeys.verify"))

      const create = Effect.fn("ApiKeys.create")(function* (input: CreateKeyInput) {
        yield* accounts.getProject(input.projectId)
        if (input.userId !== undefined) {
          const user = yield* accounts.getUser(input.userId)
          if (user.project_id !== input.projectId) {
            return yield* GatewayError.invalid(`User ${input.userId} does not belong to project ${input.projectId}.`, "user_id")
          }
        }
        const now = yield* Clock.currentTimeMillis
        if (input.expiresAt !== undefined && input.expiresAt * 1000 <= now) {
          return yield* GatewayError.invalid("expires_at must be in the future.", "expires_at")
        }
        const secret = Ids.apiKeySecret()
        const scopes = [...new Set(input.scopes ?? allScopes)]
        const rows = yield* sql<KeyRow>`WITH inserted AS (
            INSERT INTO api_keys (id, secret_sha256, hint, name, project_id, user_id, scopes, expires_at, strict_translation)
            VALUES (${Ids.apiKeyId()}, ${hashSecret(secret)}, ${secret.slice(-4)}, ${input.name ?? null},
              ${input.projectId}, ${input.userId ?? null}, ${scopes}::text[],
              ${input.expiresAt === undefined ? null : new Date(input.expiresAt * 1000)}, ${input.strictTranslation === true})
            RETURNING *)
          SELECT ${keyColumns(sql)} FROM inserted k JOIN projects p ON p.id = k.project_id`.pipe(guard)
        return { key: view(rows[0]!), secret }
      })

      /** An update of one live key's row, then every instance forgets its cached verdicts. */
      const changeLive = (id: string, update: Statement.Statement<unknown>) =>
        Effect.gen(function* () {
          const rows = yield* sql<KeyRow>`WITH updated AS (${update} RETURNING *)
            SELECT ${keyColumns(sql)} FROM updated k JOIN projects p ON p.id = k.project_id`.pipe(guard)
          const row = rows[0]
          if (row === undefined) {
            const known = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE id = ${id}`.pipe(guard)
            if (known.length > 0) return yield* GatewayError.invalid(`API key ${id} is revoked; create a new key instead.`, "key_id")
            return yield* GatewayError.notFound(`No such API key: ${id}`, "key_id")
          }
          cache.clear()
          yield* announceRevocation(sql, id)
          return row
        })

      return ApiKeys.of({
        create,
        setScopes: Effect.fn("ApiKeys.setScopes")(function* (id: string, scopes: ReadonlyArray<ApiScope>) {
          const unique = [...new Set(scopes)]
          return view(yield* changeLive(id, sql`UPDATE api_keys SET scopes = ${unique}::text[] WHERE id = ${id} AND revoked_at IS NULL`))
        }),
        rotate: Effect.fn("ApiKeys.rotate")(function* (id: string) {
          const secret = Ids.apiKeySecret()
          const row = yield* changeLive(id, sql`UPDATE api_keys SET secret_sha256 = ${hashSecret(secret)}, hint = ${secret.slice(-4)}
            WHERE id = ${id} AND revoked_at IS NULL`)
          return { key: view(row), secret }
        }),
        revokeAll: Effect.fn("ApiKeys.revokeAll")(function* (owner) {
          const rows = "projectId" in owner
            ? yield* sql<{ id: string }>`UPDATE api_keys SET revoked_at = now() WHERE project_id = ${owner.projectId} AND revoked_at IS NULL RETURNING id`.pipe(guard)
            : yield* sql<{ id: string }>`UPDATE api_keys SET revoked_at = now() WHERE user_id = ${owner.userId} AND revoked_at IS NULL RETURNING id`.pipe(guard)
          cache.clear()
          for (const row of rows) yield* announceRevocation(sql, row.id)
          return rows.length
        }),
        list: Effect.fn("ApiKeys.list")(function* (projectId: string) {
          yield* accounts.getProject(projectId)
          const rows = yield* sql<KeyRow>`SELECT ${keyColumns(sql)} FROM api_keys k JOIN projects p ON p.id = k.project_id
            WHERE k.project_id = ${projectId} ORDER BY k.seq`.pipe(guard)
          return rows.map(view)
        }),
        revoke: Effect.fn("ApiKeys.revoke")(function* (id: string) {
          const rows = yield* sql<KeyRow>`WITH updated AS (
              UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = ${id} RETURNING *)
            SELECT ${keyColumns(sql)} FROM updated k JOIN projects p ON p.id = k.project_id`.pipe(guard)
          const row = rows[0]
          if (row === undefined) return yield* GatewayError.notFound(`No such API key: ${id}`, "key_id")
          // This instance forgets at once; the others when the notice reaches them (KeyRevocations),
          // at the latest within auth.cache_ttl_seconds.
          cache.clear()
          yield* announceRevocation(sql, id)
          return view(row)
        }),
        setStrict: Effect.fn("ApiKeys.setStrict")(function* (id: string, strict: boolean) {
          const rows = yield* sql<KeyRow>`WITH updated AS (
              UPDATE api_keys SET strict_translation = ${strict} WHERE id = ${id} RETURNING *)
            SELECT ${keyColumns(sql)} FROM updated k JOIN projects p ON p.id = k.project_id`.pipe(guard)
          const row = rows[0]
          if (row === undefined) return yield* GatewayError.notFound(`No such API key: ${id}`, "key_id")
          cache.clear()
          return view(row)
        }),
        verify,
        invalidate: (keyId) => forget(cache, keyId)
      })
    })
  )
}
