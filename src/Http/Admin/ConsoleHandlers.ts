import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { HttpServerResponse } from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type { Principal } from "../../Domain/ApiKey.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { ModelEntry } from "../../Domain/ModelEntry.ts"
import { usageWindow } from "../../Domain/UsageWindow.ts"
import { Accounts } from "../../Services/Accounts/Accounts.ts"
import { ModelCatalog } from "../../Services/Catalog/ModelCatalog.ts"
import { Files } from "../../Services/Files/Files.ts"
import { dailyUsage } from "../../Services/Usage/UsageDaily.ts"
import { errorResponse } from "../ErrorResponse.ts"
import { currentRequestId } from "../Handler.ts"
import { AdminApi } from "./AdminApiDefinition.ts"

const respond = <A, R>(effect: Effect.Effect<A, GatewayError, R>) =>
  Effect.catch(effect, (error) =>
    Effect.map(currentRequestId, (requestId): A | HttpServerResponse => errorResponse(error, { requestId }))
  )

/**
 * The files service answers for a principal and reads only its project; the admin acts for the
 * project itself, so it passes a principal that carries the project and no key.
 */
const projectPrincipal = (projectId: string, projectSeq: number): Principal => ({
  keyId: "admin",
  keySeq: 0,
  projectSeq,
  projectId,
  userId: null,
  scopes: new Set(),
  expiresAt: null
})

export const DailyUsageGroupLive = HttpApiBuilder.group(AdminApi, "dailyUsage", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const sql = yield* SqlClient.SqlClient
    return handlers.handle("getDailyUsage", ({ params, query }) =>
      respond(
        Effect.gen(function* () {
          const window = yield* usageWindow(yield* Clock.currentTimeMillis, query.from, query.to)
          const projectSeq = yield* accounts.projectSeq(params.project_id)
          const data = yield* dailyUsage(sql, { projectSeq, ...window })
          return { object: "daily_usage" as const, project_id: params.project_id, ...window, data }
        })
      )
    )
  })
)

export const ProjectFilesGroupLive = HttpApiBuilder.group(AdminApi, "projectFiles", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const files = yield* Files
    const principalOf = (projectId: string) => Effect.map(accounts.projectSeq(projectId), (seq) => projectPrincipal(projectId, seq))
    return handlers
      .handle("listProjectFiles", ({ params, query }) =>
        respond(
          Effect.gen(function* () {
            const principal = yield* principalOf(params.project_id)
            const page = yield* files.list(principal, { limit: query.limit ?? 100, order: "desc", after: query.after, purpose: undefined })
            return { object: "list" as const, data: page.data, has_more: page.hasMore }
          })
        ))
      .handle("deleteProjectFile", ({ params }) =>
        respond(Effect.flatMap(principalOf(params.project_id), (principal) => files.remove(principal, params.file_id))))
  })
)

const catalogueEntry = (m: ModelEntry) => ({
  id: m.id,
  kind: m.kind,
  owned_by: m.owned_by,
  context_length: m.context_length,
  max_output_tokens: m.max_output_tokens,
  capabilities: { ...m.capabilities },
  input_modalities: m.architecture.input_modalities,
  output_modalities: m.architecture.output_modalities,
  pricing: m.pricing
})

export const CatalogueGroupLive = HttpApiBuilder.group(AdminApi, "catalogue", (handlers) =>
  Effect.gen(function* () {
    const catalog = yield* ModelCatalog
    const body = { object: "list" as const, data: catalog.list.map(catalogueEntry) }
    return handlers.handle("listCatalogue", () => Effect.succeed(body))
  })
)
