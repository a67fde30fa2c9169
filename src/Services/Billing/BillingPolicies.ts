import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import type { RateLimit } from "../../Domain/LimitSettings.ts"

/**
 * What admission needs to know about a project and key without asking the database: whether
 * the project is billed (has a balance or spend limits) and its rate limits. Loaded whole (a
 * row per configured project, key or model, not per request) and kept by every instance.
 */
export interface ProjectPolicy {
  readonly billed: boolean
  readonly rate: RateLimit | undefined
  readonly models: ReadonlyMap<string, RateLimit>
}

export interface Policies {
  readonly projects: ReadonlyMap<string, ProjectPolicy>
  /** Keys with rate limits of their own. */
  readonly keys: ReadonlyMap<string, RateLimit>
}

export const emptyPolicies: Policies = { projects: new Map(), keys: new Map() }

const rateOf = (row: { readonly rpm: number | null; readonly tpm: number | null }): RateLimit => ({
  ...(row.rpm === null ? {} : { rpm: row.rpm }),
  ...(row.tpm === null ? {} : { tpm: row.tpm })
})

export const loadPolicies = (sql: SqlClient.SqlClient): Effect.Effect<Policies, SqlError.SqlError> =>
  Effect.gen(function* () {
    const billed = yield* sql<{ project_id: string }>`SELECT project_id FROM billing_accounts`
    const rates = yield* sql<{ project_id: string; key_id: string; model: string; rpm: number | null; tpm: number | null }>`SELECT
        project_id, key_id, model, rpm, tpm FROM rate_limits`
    const projects = new Map<string, { billed: boolean; rate: RateLimit | undefined; models: Map<string, RateLimit> }>()
    const project = (id: string) => {
      let found = projects.get(id)
      if (found === undefined) {
        found = { billed: false, rate: undefined, models: new Map() }
        projects.set(id, found)
      }
      return found
    }
    for (const row of billed) project(row.project_id).billed = true
    const keys = new Map<string, RateLimit>()
    for (const row of rates) {
      if (row.key_id !== "") keys.set(row.key_id, rateOf(row))
      else if (row.model !== "") project(row.project_id).models.set(row.model, rateOf(row))
      else project(row.project_id).rate = rateOf(row)
    }
    return { projects, keys }
  })
