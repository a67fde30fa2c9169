import { randomUUID } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import type { AdmissionAsk, CostContext } from "../../Domain/AdmissionCost.ts"
import type { Principal } from "../../Domain/ApiKey.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { UsageSettlement } from "../../Domain/UsageEvent.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { AppConfig } from "../Config/AppConfig.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { connectRedis } from "../Routing/RedisConnection.ts"
import { rateLimitHeaders } from "../RateLimits/RateLimitHeaders.ts"
import { leasedWindowStore } from "../RateLimits/LeasedWindowStore.ts"
import { postgresWindowSource, postgresWindowStore } from "../RateLimits/PostgresWindowStore.ts"
import { memoryWindowStore, redisWindowSource, redisWindowStore, type WindowStore } from "../RateLimits/WindowStore.ts"
import { chargesOf, hasRateLimits } from "./AdmissionCharges.ts"
import { billingRefused, notPriced, storeDenied } from "./AdmissionErrors.ts"
import { rateLimited } from "./RateLimitRefusal.ts"
import { AdmissionPrecheck, creditDecidesEveryModel, headerCharges } from "./AdmissionPrecheck.ts"
import { AdmissionStats } from "./AdmissionStats.ts"
import { emptyPolicies, loadPolicies, type Policies } from "./BillingPolicies.ts"
import { BillingLeases, type LeaseAdmission } from "./BillingLeases.ts"
import { reserve, type ReserveOutcome, singleSession } from "./BillingStore.ts"
import { postgresLeaseStore } from "./LeaseStore.ts"
import { inStartOrder } from "./StartOrder.ts"

/** What an admitted request carries to its end: headers for the response and how it settles. */
export interface AdmissionTicket {
  readonly headers: Readonly<Record<string, string>> | undefined
  /** Called once, when the request's scope closes, with what the usage event priced: corrects TPM, gives a leased hold back to its slice. */
  readonly settle: (costNanoUsd: number, tokens: number) => Effect.Effect<void>
  /**
   * Set for a billed request: the usage event carries it, and the usage ledger writes the
   * settlement with the usage row in one transaction (BillingSettlement.ts), against the request's
   * own hold or, with `leaseId`, the lease it was admitted from.
   */
  readonly billedTo: UsageSettlement | undefined
}

export interface AdmissionShape {
  /**
   * Rate limits, then the reservation of `ask.nanoUsd` for a billed project; `undefined` (and
   * no work at all) when nothing applies to the caller.
   */
  readonly admit: (principal: Principal, model: string, worstCase: () => AdmissionAsk, requestId: string) => Effect.Effect<AdmissionTicket | undefined, GatewayError>
  /**
   * The part of admission a request's headers decide, before its body is read (see
   * `AdmissionPrecheck`): fails when the key or project is already over its request rate, or
   * out of credit for every model. Charges nothing; `admit` still runs after decoding.
   */
  readonly precheck: (principal: Principal) => Effect.Effect<void, GatewayError>
  readonly costContext: CostContext
  /** Reloads balances and limits now (after an admin change on this instance). */
  readonly refresh: Effect.Effect<void>
  readonly stats: AdmissionStats
  readonly store: WindowStore["name"]
}

const none = Effect.succeed(undefined)

/** What an admitted request holds: a share of its lease, its own reservation, or nothing. */
type Held = boolean | Extract<LeaseAdmission, { _tag: "Leased" }>

export class Admission extends Context.Service<Admission, AdmissionShape>()("gateway/Admission") {
  static readonly make = (store: WindowStore) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const clock = yield* Clock.Clock
      if ((yield* AppConfig).databaseUrl === undefined) singleSession(sql)
      const { config } = yield* GatewayConfigFile
      const catalog = yield* ModelCatalog
      const stats = new AdmissionStats()
      const defaults = config.limits.defaults
      const onFailure = config.limits.on_store_failure
      const ttlMs = config.billing.reservation_ttl_seconds * 1000
      const storageTimeout = config.resilience.storage_timeout_ms
      const retryAfterMs = config.resilience.retry_after_seconds * 1000
      const leaseSettings = config.billing.leases
      const leases = leaseSettings.enabled
        ? new BillingLeases(postgresLeaseStore(sql), {
          instanceId: randomUUID(),
          ttlMs: leaseSettings.ttl_seconds * 1000,
          minRate: leaseSettings.min_rate,
          horizonMs: leaseSettings.horizon_ms
        }, yield* Effect.scope)
        : undefined
      if (leases !== undefined) {
        // Slices are handed back and renewed as often as the usage ledger writes its events (which
        // settle leased requests with their usage rows); at shutdown (after the server drained:
        // this layer was built before it) every slice is handed back.
        const flushLeases = Effect.flatMap(Clock.currentTimeMillis, (now) => leases.flush(now))
        yield* Effect.forkScoped(Effect.repeat(flushLeases, Schedule.spaced(config.usage.flush_interval_ms)))
        yield* Effect.addFinalizer(() => Effect.flatMap(Clock.currentTimeMillis, (now) => leases.close(now)))
      }
      let policies: Policies = emptyPolicies
      const early = new AdmissionPrecheck(creditDecidesEveryModel(config))
      // Reloads overlap (the periodic one, a notice's): applied in the order they started.
      const refresh = inStartOrder(loadPolicies(sql), (loaded) => {
        policies = loaded
        early.forgetCredit()
      }).pipe(
        Effect.catch((error) => Effect.logWarning("billing: limits could not be reloaded; the last ones stay in force", error))
      )
      yield* refresh
      const sweep = store.sweep === undefined ? Effect.void : Effect.ignore(store.sweep)
      yield* Effect.forkScoped(Effect.repeat(Effect.andThen(refresh, sweep), Schedule.spaced(config.billing.refresh_seconds * 1000)))

      // A plain function rather than `Effect.fn`: it runs on every request, and a span each would
      // cost more than the check itself on the fast path.
      const admit: AdmissionShape["admit"] = (principal, model, worstCase, requestId) => {
        const project = policies.projects.get(principal.projectId)
        const billed = project?.billed === true
        // Decided before the worst case is computed: it reads the whole request.
        if (!billed && !hasRateLimits(policies, defaults, principal)) return none
        const ask = worstCase()
        const charges = chargesOf(policies, defaults, { projectId: principal.projectId, keyId: principal.keyId, model }, ask.tokens)
        stats.checked++
        if (billed && ask.unpriced !== undefined && config.billing.require_prices) {
          stats.refusedUnpriced++
          return Effect.fail(notPriced(ask.unpriced))
        }
        const tokenCharges = charges.filter((c) => c.id.endsWith(":t"))
        const release = (to: number) =>
          tokenCharges.length === 0
            ? Effect.void
            : Effect.ignore(store.adjust(requestId, tokenCharges.map((c) => ({ id: c.id, from: c.weight, to }))))
        const limited = charges.length === 0
          ? Effect.succeed<Readonly<Record<string, string>> | undefined>(undefined)
          : store.acquire(charges, requestId).pipe(
            Effect.flatMap((decision) => {
              early.noteStates(decision.states)
              const headers = rateLimitHeaders(decision.states)
              if (decision.admitted) return Effect.succeed<Readonly<Record<string, string>> | undefined>(headers)
              stats.rateLimited++
              return Effect.fail(rateLimited(decision, headers, charges))
            }),
            Effect.catchTag("WindowStoreFailure", (failure) => {
              stats.rateLimitStoreFailures++
              return storeDenied(stats, onFailure.rate_limits, "rate_limits", retryAfterMs, failure.cause)
            })
          )
        const amount = BigInt(Math.max(0, Math.ceil(ask.nanoUsd)))
        // Built only when the slice could not admit the request (a function: the busy key's usual
        // case never needs them).
        const fromStore = (): Effect.Effect<ReserveOutcome | Exclude<LeaseAdmission, { _tag: "Direct" }>, SqlError.SqlError> => {
          const direct = Effect.flatMap(Clock.currentTimeMillis, (now) =>
            reserve(sql, { projectId: principal.projectId, keyId: principal.keyId, reservationId: requestId, amount, ttlMs, now }))
          // From this instance's slice when the key is busy enough to hold one, else a hold of its own.
          return leases === undefined
            ? direct
            : Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.flatMap(leases.decide(principal.projectId, principal.keyId, amount, now), (leased) =>
                leased._tag === "Direct" ? direct : Effect.succeed<ReserveOutcome | Exclude<LeaseAdmission, { _tag: "Direct" }>>(leased)))
        }
        // A busy key's usual case: admitted from this instance's slice, no effect to run, no timer.
        const local = billed && amount > 0n && leases !== undefined
          ? leases.admitLocally(principal.projectId, principal.keyId, amount, clock.currentTimeMillisUnsafe())
          : undefined
        const leased = local?._tag === "Leased" ? local : undefined
        if (leased !== undefined) {
          stats.reserved++
          stats.leased++
        }
        const reserved = (): Effect.Effect<Held, GatewayError> => !billed || amount === 0n
          ? Effect.succeed<Held>(false)
          : fromStore().pipe(
            Effect.timeoutOrElse({ duration: storageTimeout, orElse: () => Effect.fail("timeout" as const) }),
            Effect.matchEffect({
              onFailure: (cause) => {
                stats.billingStoreFailures++
                return Effect.as(storeDenied(stats, onFailure.billing, "billing", retryAfterMs, cause), false as Held)
              },
              onSuccess: (outcome): Effect.Effect<Held, GatewayError> => {
                if (outcome._tag === "Leased") {
                  stats.reserved++
                  stats.leased++
                  return Effect.succeed(outcome)
                }
                if (outcome._tag === "Reserved") {
                  stats.reserved++
                  return Effect.succeed(true)
                }
                if (outcome._tag === "Unbilled") return Effect.succeed(false)
                const refused = billingRefused(stats, outcome.refusal, amount, ask.setBy)
                const scope = outcome.refusal.which === "key_limit" ? `k:${principal.keyId}` : `p:${principal.projectId}`
                return Effect.andThen(
                  release(0),
                  Effect.andThen(
                    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => early.noteCreditRefusal(scope, outcome.refusal.available, refused, now))),
                    Effect.fail(refused)
                  )
                )
              }
            })
          )
        const ticketOf = (headers: Readonly<Record<string, string>> | undefined, held: Held): AdmissionTicket => ({
          headers,
          settle: (costNanoUsd, tokens) => {
            const correct = tokens === ask.tokens ? Effect.void : release(tokens)
            if (typeof held === "boolean") return correct
            const cost = BigInt(Math.max(0, Math.round(costNanoUsd)))
            return Effect.andThen(correct, Effect.sync(() => {
              held.settle(cost)
              stats.settled++
            }))
          },
          // The usage ledger writes the settlement with the usage row (BillingSettlement.ts):
          // against the lease the request was admitted from, or its own reservation.
          billedTo: !billed
            ? undefined
            : typeof held === "boolean"
            ? { projectId: principal.projectId, keyId: principal.keyId }
            : { projectId: principal.projectId, keyId: principal.keyId, leaseId: held.leaseId }
        })
        if (leased !== undefined) {
          // Admitted from the slice with no rate limit to ask: decided, nothing to wait for.
          if (charges.length === 0) return Effect.succeed(ticketOf(undefined, leased))
          // Refused by a rate limit after its admission from the slice: the hold goes back, unspent.
          return Effect.map(Effect.onError(limited, () => Effect.sync(() => leased.settle(0n))), (headers) => ticketOf(headers, leased))
        }
        return Effect.flatMap(limited, (headers) => Effect.map(reserved(), (held) => ticketOf(headers, held)))
      }

      // Asks the windows only for a caller last seen at a limit; a store that does not answer
      // leaves the decision (and its `on_store_failure` policy) to the full admission.
      const precheck: AdmissionShape["precheck"] = (principal) => {
        // Nothing remembered about anyone (the usual case): nothing to ask, no work at all.
        if (!early.remembersAnything()) return Effect.void
        const project = policies.projects.get(principal.projectId)
        if (project?.billed !== true && !hasRateLimits(policies, defaults, principal)) return Effect.void
        const charges = headerCharges(chargesOf(policies, defaults, { projectId: principal.projectId, keyId: principal.keyId, model: "" }, 1))
        const limited = early.mayBeLimited(charges)
        return Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const broke = early.creditRefusal(principal, now)
          if (broke !== undefined) return Effect.fail(broke)
          if (!limited) return Effect.void
          return store.peek(charges).pipe(
            Effect.timeoutOrElse({ duration: storageTimeout, orElse: () => Effect.succeed(undefined) }),
            Effect.catchTag("WindowStoreFailure", () => Effect.succeed(undefined)),
            Effect.flatMap((decision) => {
              if (decision === undefined) return Effect.void
              early.noteStates(decision.states)
              if (decision.admitted) return Effect.void
              stats.rateLimited++
              return Effect.fail(rateLimited(decision, rateLimitHeaders(decision.states), charges))
            })
          )
        })
      }

      return Admission.of({
        admit,
        precheck,
        costContext: { config, model: (id) => catalog.find(id)?.config },
        refresh,
        stats,
        store: store.name
      })
    })

  /**
   * Rate limits in Redis when REDIS_URL is set, else in Postgres when DATABASE_URL is set (both
   * shared by every instance, busy windows leased per instance unless `limits.window_leases` is
   * off), else in this process (the embedded storage serves one instance).
   */
  static readonly layer = Layer.effect(
    Admission,
    Effect.gen(function* () {
      const app = yield* AppConfig
      const { config } = yield* GatewayConfigFile
      const shares = config.limits.window_leases
      if (app.redisUrl === undefined) {
        if (app.databaseUrl === undefined) return yield* Admission.make(memoryWindowStore())
        const sql = yield* SqlClient.SqlClient
        return yield* Admission.make(shares.enabled ? leasedWindowStore(postgresWindowSource(sql), randomUUID(), shares.span_ms) : postgresWindowStore(sql))
      }
      const client = yield* connectRedis(app.redisUrl, config.resilience)
      return yield* Admission.make(
        shares.enabled
          ? leasedWindowStore(redisWindowSource(client, app.redisPrefix), randomUUID(), shares.span_ms)
          : redisWindowStore(client, app.redisPrefix)
      )
    })
  )
}
