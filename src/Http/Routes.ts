import * as Effect from "effect/Effect"
import * as FindMyWay from "effect/http/FindMyWay"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError, MethodNotAllowed } from "../Domain/GatewayError.ts"
import { audioRoutes } from "./AudioRoutes.ts"
import { chatRoutes } from "./ChatCompletionsRoute.ts"
import { decisionsRoutes } from "./DecisionsRoute.ts"
import { embeddingsRoutes } from "./EmbeddingsRoute.ts"
import { filesRoutes } from "./FilesRoutes.ts"
import { handle } from "./Handler.ts"
import { healthRoutes } from "./HealthRoutes.ts"
import { imagesRoutes } from "./ImagesRoutes.ts"
import { messagesRoutes } from "./MessagesRoute.ts"
import { modelsRoutes } from "./ModelsRoutes.ts"
import type { Method, Route, RouteSignature } from "./Route.ts"
import { toolsRoutes } from "./ToolsRoutes.ts"

type ServicesOf<G> = G extends ReadonlyArray<Route<infer R>> ? R : never
const table = <const G extends ReadonlyArray<ReadonlyArray<Route<unknown>>>>(...groups: G) =>
  groups.flat() as ReadonlyArray<Route<ServicesOf<G[number]>>>

/** Every public route. Adding an endpoint means adding its routes here. */
export const routeTable = table(
  healthRoutes,
  modelsRoutes,
  chatRoutes,
  messagesRoutes,
  embeddingsRoutes,
  filesRoutes,
  decisionsRoutes,
  toolsRoutes,
  imagesRoutes,
  audioRoutes
)
type RouteServices = typeof routeTable extends ReadonlyArray<Route<infer R>> ? R : never

const methods: ReadonlyArray<Method> = ["GET", "POST", "DELETE"]

/** Paths that exist under another method answer 405 with `Allow`; the rest 404. */
const fallback = (table: ReadonlyArray<RouteSignature>) => {
  const known = FindMyWay.make<true>({ ignoreTrailingSlash: true })
  for (const r of table) {
    known.on(r.method, r.path, true)
    // Mirrors the router: "/x/*" also serves "/x".
    if (r.path.endsWith("/*")) known.on(r.method, r.path.slice(0, -2) as HttpRouter.PathInput, true)
  }
  return handle(
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const allow = methods.filter((m) => known.find(m, request.url) !== undefined)
      const path = request.url.split("?", 1)[0]
      if (allow.length > 0) {
        return yield* new GatewayError({
          reason: new MethodNotAllowed({ message: `Method ${request.method} is not allowed on ${path}.`, allow })
        })
      }
      return yield* GatewayError.notFound(`Unknown request URL: ${request.method} ${path}.`, undefined, "unknown_url")
    })
  )
}

/**
 * The public routes and the catch-all. `elsewhere` lists routes another layer registers (the
 * admin API), so a wrong method on them is a 405 too.
 */
export const routesLayer = <R>(elsewhere: Effect.Effect<ReadonlyArray<RouteSignature>, never, R>) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      for (const r of routeTable) yield* router.add<never, RouteServices>(r.method, r.path, r.handler)
      yield* router.add("*", "*", fallback([...routeTable, ...(yield* elsewhere)]))
    })
  )
