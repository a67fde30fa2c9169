import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as SqlClient from "effect/sql/SqlClient"
import { AppConfig } from "../Config/AppConfig.ts"
import { Admission } from "./Admission.ts"

/** The Postgres channel a change of credit, spend limits or rate limits is announced on; the payload is the project id. */
export const policyChannel = "gateway_billing_changed"

/**
 * Announces a policy change to every instance on the same database (the changing process being
 * any instance's admin API or the CLI). Sent after the change committed; best effort, since a
 * lost notice only means the old `billing.refresh_seconds` delay.
 */
export const announcePolicyChange = (sql: SqlClient.SqlClient, projectId: string) =>
  sql`SELECT pg_notify(${policyChannel}, ${projectId})`.pipe(Effect.ignore)

/**
 * Postgres: every instance listens and reloads its admission policies when a notice comes, so a
 * grant that makes a project billed, or a new limit, is in force everywhere at once rather than
 * after `billing.refresh_seconds`. The listener holds one connection; each time it starts
 * listening (at start, and a second after the connection is lost) it reloads, since notices
 * sent before were missed. Embedded storage
 * serves one instance, whose own admin API reloads it directly (PGlite hands a notice only to
 * the connection that raised it); a change from the CLI reaches it with the periodic reload.
 */
export const BillingPolicyNoticesLive = Layer.effectDiscard(
  Effect.gen(function* () {
    if ((yield* AppConfig).databaseUrl === undefined) return
    const pg = yield* PgClient.PgClient
    const admission = yield* Admission
    const listen = Effect.scoped(
      Effect.gen(function* () {
        const notices = yield* pg.listen(policyChannel)
        // Also the first time: the policies loaded at start may predate this LISTEN, and a
        // change committed in between sent its notice to nobody.
        yield* admission.refresh
        while (true) {
          yield* Queue.take(notices)
          // Notices that came meanwhile are covered by this one reload.
          yield* Queue.clear(notices)
          yield* admission.refresh
        }
      })
    ).pipe(Effect.retry(Schedule.spaced("1 second")))
    yield* Effect.forkScoped(Effect.catchCause(listen, (cause) => Effect.logWarning("billing: policy notices stopped", cause)))
  })
)
