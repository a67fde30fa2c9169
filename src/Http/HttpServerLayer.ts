import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import { AppConfig } from "../Services/Config/AppConfig.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { bodyLimitTable, BodyLimits, JsonLimits, jsonShapeLimits } from "./BodyLimits.ts"
import { closeIdleConnections } from "./IdleConnections.ts"
import { BodyReadTimeout } from "./JsonBody.ts"
import { answerClientErrors, RequestGuardLive, routerConfig } from "./RequestGuard.ts"
import type { RouteSignature } from "./Route.ts"
import { routesLayer } from "./Routes.ts"
import { withAccessLog } from "./AccessLogHook.ts"
import { accessLogOf } from "../Services/AccessLog/AccessLog.ts"
import { CurrentDrain, ServerDrain } from "./ServerDrain.ts"

/**
 * How much longer than the shutdown grace the server waits before it interrupts what is left:
 * the time streams cut at the grace have to write their last frame and close.
 */
const stopMarginMs = 2000

/**
 * Node's own HTTP server, drained on SIGTERM (`ServerDrain.ts`): new connections are refused,
 * each kept-alive connection's next response closes it, requests in flight get
 * `server.shutdown_grace_seconds` to finish, and streams still open then end with the frame
 * saying so. The drain is also the routes' `CurrentDrain`.
 */
export const NodeServerLive = Layer.unwrap(
  Effect.gen(function* () {
    const app = yield* AppConfig
    const { config } = yield* GatewayConfigFile
    const accessLog = yield* accessLogOf(config.access_log, app.logLevel)
    const graceMs = config.server.shutdown_grace_seconds * 1000
    const drain = new ServerDrain(graceMs)
    return Layer.merge(
      NodeHttpServer.layer(
        () =>
          withAccessLog(drain.attach(answerClientErrors(closeIdleConnections(
            createServer({
              // Bodies and streams are bounded by our own limits and timeouts, not Node's.
              requestTimeout: 0,
              headersTimeout: 60_000,
              // Longer than common load balancer idle timeouts, so they close first. Enforced by one
              // sweep over the connections (IdleConnections.ts), not Node's timer per request.
              keepAliveTimeout: 65_000
            })
          ))), accessLog.mode, accessLog.writer),
        { port: app.port, host: app.host, gracefulShutdownTimeout: `${graceMs + stopMarginMs} millis` }
      ),
      Layer.succeed(CurrentDrain, drain)
    )
  })
)

const SettingsLive = Layer.unwrap(
  Effect.map(GatewayConfigFile, ({ config }) =>
    Layer.mergeAll(
      Layer.succeed(BodyLimits, bodyLimitTable(config.server)),
      Layer.succeed(JsonLimits, jsonShapeLimits(config.server)),
      Layer.succeed(BodyReadTimeout, config.resilience.body_read_timeout_seconds * 1000)
    ))
)

/** The `/v1` surface and health checks; admin routes are added by the composition root. */
export const HttpAppLive = <A, E, R, R2 = never>(
  extra: Layer.Layer<A, E, R>,
  extraRoutes: Effect.Effect<ReadonlyArray<RouteSignature>, never, R2> = Effect.succeed([])
) =>
  HttpRouter.serve(Layer.mergeAll(routesLayer(extraRoutes), extra, RequestGuardLive), {
    disableLogger: true,
    disableListenLog: true,
    routerConfig
  }).pipe(
    Layer.provide(SettingsLive)
  )
