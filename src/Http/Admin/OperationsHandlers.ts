import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { HttpServerResponse } from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { usageWindow } from "../../Domain/UsageWindow.ts"
import { Accounts } from "../../Services/Accounts/Accounts.ts"
import { ApiKeys } from "../../Services/Accounts/ApiKeys.ts"
import { deleteProject, deleteUser } from "../../Services/Accounts/Deletion.ts"
import { BillingAdmin } from "../../Services/Billing/BillingAdmin.ts"
import { billingSince } from "../../Services/Billing/BillingSince.ts"
import { requestLog, requestRecord } from "../../Services/Usage/RequestLog.ts"
import { keyUsage, topModels, usageSummary } from "../../Services/Usage/UsageOverview.ts"
import { errorResponse } from "../ErrorResponse.ts"
import { currentRequestId } from "../Handler.ts"
import { AdminApi } from "./AdminApiDefinition.ts"

const respond = <A, R>(effect: Effect.Effect<A, GatewayError, R>) =>
  Effect.catch(effect, (error) =>
    Effect.map(currentRequestId, (requestId): A | HttpServerResponse => errorResponse(error, { requestId }))
  )

const dayStart = (ms: number) => Math.floor(ms / 86_400_000) * 86_400
const monthStart = (ms: number) => {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000
}

export const InsightsGroupLive = HttpApiBuilder.group(AdminApi, "insights", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const billing = yield* BillingAdmin
    const sql = yield* SqlClient.SqlClient
    return handlers
      .handle("getOverview", ({ params }) =>
        respond(Effect.gen(function* () {
          const seq = yield* accounts.projectSeq(params.project_id)
          const now = yield* Clock.currentTimeMillis
          const day = dayStart(now)
          const month = monthStart(now)
          const end = day + 86_400
          const [today, thisMonth, top, status, since] = yield* Effect.all([
            usageSummary(sql, seq, day, end),
            usageSummary(sql, seq, month, end),
            topModels(sql, seq, month, end, 5),
            billing.status(params.project_id),
            billingSince(sql, params.project_id)
          ])
          return {
            object: "project_overview" as const,
            project_id: params.project_id,
            day_start: day,
            month_start: month,
            today,
            month: thisMonth,
            top_models: top,
            billing: {
              balance_usd: status.balance_usd,
              reserved_usd: status.reserved_usd,
              billed: since.billed,
              counting_since: since.since,
              day_usd: status.spend.day_usd,
              month_usd: status.spend.month_usd
            }
          }
        })))
      .handle("getKeyUsage", ({ params, query }) =>
        respond(Effect.gen(function* () {
          const window = yield* usageWindow(yield* Clock.currentTimeMillis, query.from, query.to)
          const seq = yield* accounts.projectSeq(params.project_id)
          const data = yield* keyUsage(sql, params.project_id, seq, window.from, window.to)
          return { object: "key_usage" as const, project_id: params.project_id, ...window, data }
        })))
      .handle("listRequests", ({ params, query }) =>
        respond(Effect.gen(function* () {
          const seq = yield* accounts.projectSeq(params.project_id)
          const page = yield* requestLog(sql, {
            projectSeq: seq,
            limit: query.limit ?? 50,
            before: query.before,
            keyId: query.key_id,
            model: query.model,
            outcome: query.outcome,
            code: query.code
          })
          return { object: "list" as const, data: page.data, has_more: page.hasMore }
        })))
      .handle("getRequest", ({ params }) =>
        respond(Effect.gen(function* () {
          const seq = yield* accounts.projectSeq(params.project_id)
          const record = yield* requestRecord(sql, seq, params.request_id)
          if (record === undefined) {
            return yield* GatewayError.notFound(
              `No request ${params.request_id} in project ${params.project_id} (usage is written within usage.flush_interval_ms of a request's end).`,
              "request_id"
            )
          }
          return record
        })))
  })
)

export const OperationsGroupLive = HttpApiBuilder.group(AdminApi, "operations", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const keys = yield* ApiKeys
    const provide = <A, E>(effect: Effect.Effect<A, E, Accounts | ApiKeys>) =>
      effect.pipe(Effect.provideService(Accounts, accounts), Effect.provideService(ApiKeys, keys))
    return handlers
      .handle("setKeyScopes", ({ params, payload }) => respond(keys.setScopes(params.key_id, payload.scopes)))
      .handle("rotateKey", ({ params }) => respond(keys.rotate(params.key_id)))
      .handle("deleteUser", ({ params }) => respond(provide(deleteUser(params.user_id))))
      .handle("deleteProject", ({ params }) => respond(provide(deleteProject(params.project_id))))
  })
)
