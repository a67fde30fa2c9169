import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import type { BillingStatusView, CreditLedgerView, ReconcileView } from "../../Domain/BillingView.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { nanoFromUsd } from "../../Domain/NanoUsd.ts"
import { Accounts } from "../Accounts/Accounts.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { storageGuard } from "../Storage/StorageGuard.ts"
import { Admission } from "./Admission.ts"
import { billingStatus, creditLedger, setRateLimit, setSpendLimit } from "./BillingAdminStore.ts"
import type { Period } from "./BillingDecision.ts"
import { announcePolicyChange } from "./BillingPolicyNotices.ts"
import { reconcile } from "./BillingReconcile.ts"
import { logOutcome } from "./BillingReconciler.ts"
import { credit, singleSession } from "./BillingStore.ts"
import { AppConfig } from "../Config/AppConfig.ts"

export interface CreditInput {
  readonly projectId: string
  readonly amountUsd: number
  readonly kind: "grant" | "refund"
  readonly note?: string | undefined
  readonly requestId?: string | undefined
  /** Who granted it (free text: a name or an email). */
  readonly grantedBy?: string | undefined
}

export interface SpendLimitInput {
  readonly projectId: string
  readonly keyId?: string | undefined
  readonly period: Period
  /** null clears the limit. */
  readonly limitUsd: number | null
}

export interface RateLimitInput {
  readonly projectId: string
  readonly keyId?: string | undefined
  readonly model?: string | undefined
  /** undefined: unchanged (none for a new limit); null: none. */
  readonly rpm: number | null | undefined
  readonly tpm: number | null | undefined
}

/** Credits and limits as the admin API and CLI set and read them; every change is live on this instance at once. */
export class BillingAdmin extends Context.Service<
  BillingAdmin,
  {
    readonly status: (projectId: string) => Effect.Effect<BillingStatusView, GatewayError>
    readonly credit: (input: CreditInput) => Effect.Effect<BillingStatusView, GatewayError>
    readonly ledger: (projectId: string, limit: number) => Effect.Effect<CreditLedgerView, GatewayError>
    readonly setSpendLimit: (input: SpendLimitInput) => Effect.Effect<BillingStatusView, GatewayError>
    readonly setRateLimit: (input: RateLimitInput) => Effect.Effect<BillingStatusView, GatewayError>
    /** Closes expired holds now (BillingReconcile.ts), as the periodic job does. */
    readonly reconcile: Effect.Effect<ReconcileView, GatewayError>
  }
>()("gateway/BillingAdmin") {
  static readonly layer = Layer.effect(
    BillingAdmin,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      if ((yield* AppConfig).databaseUrl === undefined) singleSession(sql)
      const accounts = yield* Accounts
      const guard = storageGuard((yield* GatewayConfigFile).config.resilience)
      // This instance reloads its admission data at once (the CLI has none to reload); every
      // other instance on the database when the notice reaches it (BillingPolicyNotices).
      const reload = Option.match(yield* Effect.serviceOption(Admission), { onNone: () => Effect.void, onSome: (a) => a.refresh })
      const refresh = (projectId: string) => Effect.andThen(reload, announcePolicyChange(sql, projectId))

      /** The project exists, and the key (if any) is one of its keys. */
      const check = Effect.fn("BillingAdmin.check")(function* (projectId: string, keyId: string | undefined) {
        yield* accounts.getProject(projectId)
        if (keyId === undefined) return ""
        const rows = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE id = ${keyId} AND project_id = ${projectId}`.pipe(guard)
        if (rows.length === 0) return yield* GatewayError.notFound(`No key ${keyId} in project ${projectId}`, "key_id")
        return keyId
      })
      const status = Effect.fn("BillingAdmin.status")(function* (projectId: string) {
        yield* accounts.getProject(projectId)
        return yield* billingStatus(sql, projectId, yield* Clock.currentTimeMillis).pipe(guard)
      })

      return BillingAdmin.of({
        status,
        credit: Effect.fn("BillingAdmin.credit")(function* (input: CreditInput) {
          yield* check(input.projectId, undefined)
          const amount = nanoFromUsd(input.amountUsd)
          if (amount <= 0n) return yield* GatewayError.invalid("amount_usd must be a positive dollar amount (at least 0.000000001)", "amount_usd")
          yield* credit(sql, {
            projectId: input.projectId,
            amount,
            kind: input.kind,
            note: input.note ?? null,
            requestId: input.requestId ?? null,
            grantedBy: input.grantedBy ?? null
          }).pipe(guard)
          yield* refresh(input.projectId)
          return yield* status(input.projectId)
        }),
        ledger: Effect.fn("BillingAdmin.ledger")(function* (projectId: string, limit: number) {
          yield* check(projectId, undefined)
          return yield* creditLedger(sql, projectId, limit).pipe(guard)
        }),
        setSpendLimit: Effect.fn("BillingAdmin.setSpendLimit")(function* (input: SpendLimitInput) {
          const keyId = yield* check(input.projectId, input.keyId)
          const limit = input.limitUsd === null ? null : nanoFromUsd(input.limitUsd)
          yield* setSpendLimit(sql, { projectId: input.projectId, keyId, period: input.period, limit }).pipe(guard)
          yield* refresh(input.projectId)
          return yield* status(input.projectId)
        }),
        setRateLimit: Effect.fn("BillingAdmin.setRateLimit")(function* (input: RateLimitInput) {
          const keyId = yield* check(input.projectId, input.keyId)
          const model = input.model ?? ""
          if (keyId !== "" && model !== "") return yield* GatewayError.invalid("A rate limit is per key or per model of the project, not both", "model")
          if (input.rpm === undefined && input.tpm === undefined) {
            return yield* GatewayError.invalid("Give 'rpm', 'tpm' or both (null removes one; both null remove the limit)", "rpm")
          }
          yield* setRateLimit(sql, { projectId: input.projectId, keyId, model, rpm: input.rpm, tpm: input.tpm }).pipe(guard)
          yield* refresh(input.projectId)
          return yield* status(input.projectId)
        }),
        reconcile: Effect.gen(function* () {
          const outcome = yield* reconcile(sql, yield* Clock.currentTimeMillis).pipe(guard)
          yield* logOutcome(outcome)
          return { object: "billing_reconciliation" as const, settled: outcome.settled, settled_nano_usd: outcome.settledNanoUsd.toString(), released: outcome.released }
        }).pipe(Effect.withSpan("BillingAdmin.reconcile"))
      })
    })
  )
}
