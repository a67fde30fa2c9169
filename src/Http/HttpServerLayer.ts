import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { AppConfig } from "../Services/AppConfig.ts"
import { GatewayConfigFile } from "../Services/GatewayConfigLoader.ts"
import { BodyLimit } from "./JsonBody.ts"
import { RoutesLive } from "./Routes.ts"

/** Node's own HTTP server: in-flight requests get `server.shutdown_grace_seconds` after SIGTERM. */
export const NodeServerLive = Layer.unwrap(
  Effect.gen(function* () {
    const app = yield* AppConfig
    const { config } = yield* GatewayConfigFile
    return NodeHttpServer.layer(
      () =>
        createServer({
          // Bodies and streams are bounded by our own limits and timeouts, not Node's.
          requestTimeout: 0,
          headersTimeout: 60_000,
          // Longer than common load balancer idle timeouts, so they close first.
          keepAliveTimeout: 65_000
        }),
      { port: app.port, host: app.host, gracefulShutdownTimeout: `${config.server.shutdown_grace_seconds} seconds` }
    )
  })
)

const SettingsLive = Layer.unwrap(
  Effect.map(GatewayConfigFile, ({ config }) => Layer.succeed(BodyLimit, config.server.body_limit_mb * 1024 * 1024))
)

/** The `/v1` surface and health checks; admin routes are added by the composition root. */
export const HttpAppLive = <A, E, R>(extra: Layer.Layer<A, E, R>) =>
  HttpRouter.serve(Layer.mergeAll(RoutesLive, extra), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(SettingsLive)
  )
