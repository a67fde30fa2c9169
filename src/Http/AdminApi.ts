import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Data from "effect/Data"
import * as Redacted from "effect/Redacted"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as OpenApi from "effect/http-api/OpenApi"
import { adminTokenProblem, AppConfig } from "../Services/Config/AppConfig.ts"
import { adminAuthLayer, adminGate, adminRefusal } from "./Admin/AdminAuth.ts"
import { AdminApi } from "./Admin/AdminApiDefinition.ts"
import { AdminDisabledLive } from "./Admin/AdminDisabled.ts"
import { AdminErrorsLive } from "./Admin/AdminErrors.ts"
import { KeysGroupLive, ProjectsGroupLive, UsageGroupLive, UsersGroupLive } from "./Admin/AdminHandlers.ts"
import { CatalogueGroupLive, DailyUsageGroupLive, ProjectFilesGroupLive } from "./Admin/ConsoleHandlers.ts"
import { BillingGroupLive } from "./Admin/BillingHandlers.ts"
import { InsightsGroupLive, OperationsGroupLive } from "./Admin/OperationsHandlers.ts"
import { handle } from "./Handler.ts"
import type { RouteSignature } from "./Route.ts"

export { AdminApi } from "./Admin/AdminApiDefinition.ts"

/** The OpenAPI document sits behind the admin token like every other `/admin` route. */
const openApiRoute = (token: Redacted.Redacted<string>) => Layer.unwrap(Effect.map(adminGate, (gate) => {
  const refusalOf = adminRefusal(token, gate)
  const document = OpenApi.fromApi(AdminApi)
  return HttpRouter.add(
    "GET",
    "/admin/openapi.json",
    handle(
      Effect.gen(function* () {
        const refused = yield* refusalOf(yield* HttpApiBuilder.securityDecode(HttpApiSecurity.bearer))
        if (refused !== undefined) return yield* refused
        return HttpServerResponse.jsonUnsafe(document)
      })
    )
  )
}))

/** The admin routes, guarded by `token`. */
export const adminApiLayer = (token: Redacted.Redacted<string>) =>
  Layer.mergeAll(HttpApiBuilder.layer(AdminApi), openApiRoute(token)).pipe(
    Layer.provide(
      Layer.mergeAll(ProjectsGroupLive, UsersGroupLive, KeysGroupLive, UsageGroupLive, BillingGroupLive, DailyUsageGroupLive, ProjectFilesGroupLive, CatalogueGroupLive, InsightsGroupLive, OperationsGroupLive).pipe(
        Layer.provide([adminAuthLayer(token), AdminErrorsLive])
      )
    )
  )

const methods = new Set<string>(["GET", "POST", "DELETE"])

/** Every method and path the admin API answers, for the catch-all's 405 (none when it is off). */
export const adminRouteSignatures: Effect.Effect<ReadonlyArray<RouteSignature>, never, AppConfig> = Effect.map(
  AppConfig,
  (app) => {
    if (app.adminToken === undefined) return []
    const signatures: Array<RouteSignature> = [{ method: "GET", path: "/admin/openapi.json" }]
    for (const [path, operations] of Object.entries(OpenApi.fromApi(AdminApi).paths)) {
      for (const method of Object.keys(operations ?? {}).map((m) => m.toUpperCase())) {
        if (!methods.has(method)) continue
        signatures.push({ method: method as RouteSignature["method"], path: path.replace(/\{([^{}]+)\}/g, ":$1") as HttpRouter.PathInput })
      }
    }
    return signatures
  }
)

/**
 * The admin API when GATEWAY_ADMIN_TOKEN is set; otherwise `/admin/...` answers a 404 saying
 * it is disabled and how to enable it.
 */
export const AdminRoutesLive = Layer.unwrap(
  Effect.flatMap(AppConfig, (app) => {
    if (app.adminToken === undefined) return Effect.succeed(AdminDisabledLive)
    // Settings made in code (not from the environment) are held to the same rule.
    const problem = adminTokenProblem(Redacted.value(app.adminToken))
    return problem === undefined ? Effect.succeed(adminApiLayer(app.adminToken)) : Effect.fail(new AdminTokenRefused({ message: `GATEWAY_ADMIN_TOKEN ${problem}` }))
  })
)

/** The admin token is too short to start with (see `adminTokenProblem`). */
export class AdminTokenRefused extends Data.TaggedError("AdminTokenRefused")<{ readonly message: string }> {}
