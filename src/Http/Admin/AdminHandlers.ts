import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { usageWindow } from "../../Domain/UsageWindow.ts"
import { Accounts } from "../../Services/Accounts/Accounts.ts"
import { ApiKeys } from "../../Services/Accounts/ApiKeys.ts"
import { UsageLedger } from "../../Services/Usage/UsageLedger.ts"
import { errorResponse } from "../ErrorResponse.ts"
import { currentRequestId } from "../Handler.ts"
import { AdminApi } from "./AdminApiDefinition.ts"

/**
 * Renders a failure with the gateway's envelope right here, so handlers never hand a
 * `GatewayError` to the framework (which only knows the declared error schemas).
 */
const respond = <A, R>(
  effect: Effect.Effect<A, GatewayError, R>
): Effect.Effect<A | HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catch(effect, (error) =>
    Effect.map(currentRequestId, (requestId) => errorResponse(error, { requestId }))
  )

const list = <A>(data: ReadonlyArray<A>) => ({ object: "list" as const, data })

export const ProjectsGroupLive = HttpApiBuilder.group(AdminApi, "projects", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const keys = yield* ApiKeys
    return handlers
      .handle("createProject", ({ payload }) => respond(accounts.createProject(payload.name, payload.strict_translation)))
      .handle("listProjects", () => respond(Effect.map(accounts.listProjects(), list)))
      .handle("getProject", ({ params }) => respond(accounts.getProject(params.project_id)))
      // Every key's cached principal carries its project's strictness: this instance forgets them all.
      .handle("setProjectStrict", ({ params, payload }) =>
        respond(Effect.tap(accounts.setProjectStrict(params.project_id, payload.strict_translation), () => Effect.sync(() => keys.invalidate(undefined)))))
  })
)

export const UsersGroupLive = HttpApiBuilder.group(AdminApi, "users", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    return handlers
      .handle("createUser", ({ params, payload }) =>
        respond(
          accounts.createUser({
            projectId: params.project_id,
            name: payload.name,
            email: payload.email ?? undefined
          })
        )
      )
      .handle("listUsers", ({ params }) => respond(Effect.map(accounts.listUsers(params.project_id), list)))
  })
)

export const KeysGroupLive = HttpApiBuilder.group(AdminApi, "keys", (handlers) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    return handlers
      .handle("createKey", ({ params, payload }) =>
        respond(
          keys.create({
            projectId: params.project_id,
            name: payload.name ?? undefined,
            userId: payload.user_id ?? undefined,
            scopes: payload.scopes,
            expiresAt: payload.expires_at ?? undefined,
            strictTranslation: payload.strict_translation
          })
        )
      )
      .handle("listKeys", ({ params }) => respond(Effect.map(keys.list(params.project_id), list)))
      .handle("revokeKey", ({ params }) => respond(keys.revoke(params.key_id)))
      .handle("setKeyStrict", ({ params, payload }) => respond(keys.setStrict(params.key_id, payload.strict_translation)))
      .handle("deleteKey", ({ params }) => respond(keys.revoke(params.key_id)))
  })
)

export const UsageGroupLive = HttpApiBuilder.group(AdminApi, "usage", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const ledger = yield* UsageLedger
    return handlers.handle("getUsage", ({ params, query }) =>
      respond(
        Effect.gen(function* () {
          const window = yield* usageWindow(yield* Clock.currentTimeMillis, query.from, query.to)
          const projectSeq = yield* accounts.projectSeq(params.project_id)
          return yield* ledger.report({ projectId: params.project_id, projectSeq, ...window })
        })
      )
    )
  })
)
