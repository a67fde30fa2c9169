import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { GatewayError } from "../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { GatewayMetrics } from "../Services/Metrics/GatewayMetrics.ts"
import type { MetricsRecorder } from "../Services/Metrics/MetricsRecorder.ts"
import { tokenMatcher } from "./Admin/AdminAuth.ts"
import { handle } from "./Handler.ts"
import type { RouteSignature } from "./Route.ts"

const scrape = (recorder: MetricsRecorder, token: Redacted.Redacted<string> | undefined) => {
  const matches = token === undefined ? undefined : tokenMatcher(token)
  return Effect.gen(function* () {
    if (matches !== undefined) {
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers["authorization"] ?? ""
      const given = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : ""
      if (given === "") return yield* GatewayError.unauthenticated("Scrapes need 'Authorization: Bearer <metrics.token>'.", "missing_metrics_token")
      if (!matches(given)) return yield* GatewayError.unauthenticated("Incorrect metrics token provided.", "invalid_metrics_token")
    }
    const text = yield* Effect.promise(() => recorder.registry.metrics())
    return HttpServerResponse.text(text, { contentType: recorder.registry.contentType, headers: { "cache-control": "no-store" } })
  })
}

/** `GET /metrics` in Prometheus text format when `metrics.enabled` is set; nothing otherwise. */
export const MetricsRouteLive = Layer.unwrap(
  Effect.gen(function* () {
    const { recorder } = yield* GatewayMetrics
    const { config } = yield* GatewayConfigFile
    if (recorder === undefined) return Layer.empty
    return HttpRouter.add("GET", "/metrics", handle(scrape(recorder, config.metrics.token)))
  })
)

export const metricsRouteSignatures: Effect.Effect<ReadonlyArray<RouteSignature>, never, GatewayConfigFile> = Effect.map(
  GatewayConfigFile,
  ({ config }): ReadonlyArray<RouteSignature> => (config.metrics.enabled ? [{ method: "GET", path: "/metrics" }] : [])
)
