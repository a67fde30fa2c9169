import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { BillingAdmin } from "../../Services/Billing/BillingAdmin.ts"
import { errorResponse } from "../ErrorResponse.ts"
import { currentRequestId } from "../Handler.ts"
import { AdminApi } from "./AdminApiDefinition.ts"

const respond = <A, R>(effect: Effect.Effect<A, GatewayError, R>) =>
  Effect.catch(effect, (error) => Effect.map(currentRequestId, (requestId) => errorResponse(error, { requestId })))

export const BillingGroupLive = HttpApiBuilder.group(AdminApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const billing = yield* BillingAdmin
    return handlers
      .handle("getBilling", ({ params }) => respond(billing.status(params.project_id)))
      .handle("addCredit", ({ params, payload }) =>
        respond(
          billing.credit({
            projectId: params.project_id,
            amountUsd: payload.amount_usd,
            kind: payload.kind ?? "grant",
            note: payload.note,
            requestId: payload.request_id,
            grantedBy: payload.granted_by
          })
        ))
      .handle("listCredits", ({ params, query }) => respond(billing.ledger(params.project_id, query.limit ?? 100)))
      .handle("setSpendLimit", ({ params, payload }) =>
        respond(billing.setSpendLimit({ projectId: params.project_id, keyId: payload.key_id, period: payload.period, limitUsd: payload.limit_usd })))
      .handle("setRateLimit", ({ params, payload }) =>
        respond(
          billing.setRateLimit({
            projectId: params.project_id,
            keyId: payload.key_id,
            model: payload.model,
            rpm: payload.rpm,
            tpm: payload.tpm
          })
        ))
      .handle("reconcileBilling", () => respond(billing.reconcile))
  })
)
