import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import { formatNanoUsd } from "../../Domain/NanoUsd.ts"
import { reconcile, type ReconcileOutcome } from "./BillingReconcile.ts"

/** How often each instance reconciles expired holds (every instance may; claims make that safe). */
export const reconcileEverySeconds = 60

/** Logs what a pass changed; a pass that found nothing says nothing. */
export const logOutcome = (outcome: ReconcileOutcome) =>
  outcome.settled === 0 && outcome.released === 0
    ? Effect.void
    : Effect.logWarning("billing: reconciliation closed expired holds", {
      settled: outcome.settled,
      settled_usd: formatNanoUsd(outcome.settledNanoUsd, 9),
      released: outcome.released
    })

/**
 * The periodic reconciliation (BillingReconcile.ts) of this instance: expired holds settled from
 * the usage ledger or released. A failed pass is logged and the next one tries again.
 */
export const BillingReconcilerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pass = Effect.flatMap(Clock.currentTimeMillis, (now) => reconcile(sql, now)).pipe(
      Effect.flatMap(logOutcome),
      Effect.catchCause((cause) => Effect.logWarning("billing: reconciliation failed; the next pass tries again", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(pass, Schedule.spaced(reconcileEverySeconds * 1000)))
  })
)
