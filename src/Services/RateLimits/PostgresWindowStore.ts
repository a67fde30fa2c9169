import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { type WindowCharge, type WindowDecision, type WindowState, waitUntilFits, windowMs } from "./SlidingWindows.ts"
import { shareSize, type WindowShare, type WindowShareSource, type WindowStore, WindowStoreFailure, type WindowTake } from "./WindowStore.ts"

const num = (value: unknown): number => Number(value ?? 0)

/**
 * One admission decision under the windows' advisory locks (in a fixed order, so two admissions
 * never deadlock): prunes, sums and inserts, timed by the database clock. `ticket` undefined: a
 * peek, which decides the same way and charges nothing. With `share`, each window is charged
 * the share's size instead of the request's weight, in an entry dated `aheadMs` in the future.
 */
export const decideWindows = (
  sql: SqlClient.SqlClient,
  charges: ReadonlyArray<WindowCharge>,
  ticket: string | undefined,
  share?: WindowShare
): Effect.Effect<WindowTake, WindowStoreFailure> =>
      sql.withTransaction(
        Effect.gen(function* () {
          const ids = [...new Set(charges.map((c) => c.id))].sort()
          for (const id of ids) yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`rl:${id}`}))`
          const [clock] = yield* sql<{ now: string }>`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint::text AS now`
          const now = num(clock?.now)
          yield* sql`DELETE FROM rate_window_entries WHERE window_id IN ${sql.in(ids)} AND at_ms <= ${now - windowMs}`
          const sums = yield* sql<{ window_id: string; total: string; last: string }>`SELECT window_id, sum(weight)::text AS total,
              max(at_ms)::text AS last FROM rate_window_entries WHERE window_id IN ${sql.in(ids)} GROUP BY window_id`
          const totals = new Map(sums.map((s) => [s.window_id, { total: num(s.total), last: num(s.last) }]))
          let retryAfterMs = 0
          let tooLarge = false
          const charged = new Map<string, number>()
          for (const charge of charges) {
            const total = totals.get(charge.id)?.total ?? 0
            charged.set(charge.id, share === undefined ? charge.weight : shareSize(charge, total, share.want(charge)))
            if (total + charge.weight <= charge.limit) continue
            if (charge.weight > charge.limit) tooLarge = true
            const entries = yield* sql<{ at_ms: string; weight: string }>`SELECT at_ms::text AS at_ms, weight::text AS weight
              FROM rate_window_entries WHERE window_id = ${charge.id} ORDER BY at_ms`
            const wait = waitUntilFits(entries.map((e) => ({ at: num(e.at_ms), weight: num(e.weight) })), total, charge.limit, charge.weight, now)
            retryAfterMs = Math.max(retryAfterMs, wait)
          }
          if (retryAfterMs === 0 && ticket !== undefined) {
            for (const charge of charges) {
              const weight = charged.get(charge.id)!
              // Only a share admits later requests: a request's own entry is dated now.
              const at = weight > charge.weight ? now + (share?.aheadMs ?? 0) : now
              yield* sql`INSERT INTO rate_window_entries (window_id, ticket, at_ms, weight)
                VALUES (${charge.id}, ${ticket}, ${at}, ${Math.round(weight)})
                ON CONFLICT (window_id, ticket) DO NOTHING`
              const before = totals.get(charge.id)
              totals.set(charge.id, { total: (before?.total ?? 0) + weight, last: at })
            }
          }
          const states = charges.map((charge): WindowState => {
            const window = totals.get(charge.id)
            return {
              id: charge.id,
              limit: charge.limit,
              remaining: Math.max(0, charge.limit - (window?.total ?? 0)),
              resetMs: window === undefined ? 0 : Math.max(0, window.last + windowMs - now)
            }
          })
          const decision: WindowDecision = retryAfterMs === 0 ? { admitted: true, states } : { admitted: false, retryAfterMs, states, tooLarge }
          return { decision, charged }
        })
      ).pipe(Effect.mapError((cause) => new WindowStoreFailure({ cause })))

/** Sets the weight of `ticket`'s entry in window `id` outright (whatever it was). */
const reweigh = (sql: SqlClient.SqlClient, id: string, ticket: string, to: number): Effect.Effect<void, WindowStoreFailure> =>
  Effect.asVoid(sql`UPDATE rate_window_entries SET weight = ${Math.round(to)} WHERE window_id = ${id} AND ticket = ${ticket}`).pipe(
    Effect.mapError((cause) => new WindowStoreFailure({ cause }))
  )

/**
 * The sliding windows in Postgres, for instances that share a database but no Redis: one
 * transaction per admission (`decideWindows`).
 */
export const postgresWindowStore = (sql: SqlClient.SqlClient): WindowStore => {
  const failed = (cause: unknown) => new WindowStoreFailure({ cause })
  const decide = (charges: ReadonlyArray<WindowCharge>, ticket: string | undefined) =>
    Effect.map(decideWindows(sql, charges, ticket), (take) => take.decision)
  return {
    name: "postgres",
    acquire: decide,
    peek: (charges) => decide(charges, undefined),
    adjust: (ticket, corrections) => Effect.forEach(corrections, (c) => reweigh(sql, c.id, ticket, c.to), { discard: true }),
    sweep: Effect.asVoid(
      sql`DELETE FROM rate_window_entries WHERE at_ms <= (extract(epoch from clock_timestamp()) * 1000)::bigint - ${windowMs}`
    ).pipe(Effect.mapError(failed))
  }
}

/** The sliding windows in Postgres as a source of shares (LeasedWindowStore.ts): a transaction per share. */
export const postgresWindowSource = (sql: SqlClient.SqlClient): WindowShareSource => {
  const store = postgresWindowStore(sql)
  return {
    name: "postgres",
    take: (charges, ticket, share) => decideWindows(sql, charges, ticket, share),
    reweigh: (id, ticket, _from, to) => reweigh(sql, id, ticket, to),
    peek: store.peek,
    ...(store.sweep === undefined ? {} : { sweep: store.sweep })
  }
}
