import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import { requestJsonLogger } from "./Http/RequestLogger.ts"
import { AppConfig } from "./Services/Config/AppConfig.ts"
import { trimEndChars } from "./Domain/TrimChars.ts"

const levels: Record<string, LogLevel.LogLevel> = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
}

/** One JSON object per line on stdout, naming the request a line belongs to; LOG_LEVEL picks the minimum level. */
export const LoggingLive = Layer.unwrap(
  Effect.map(AppConfig, (app) =>
    Layer.mergeAll(
      Logger.layer([requestJsonLogger]),
      Layer.succeed(References.MinimumLogLevel, levels[app.logLevel.toLowerCase()] ?? "Info")
    )
  )
)

/**
 * Traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set (the signal path `/v1/traces`
 * is appended, as the OpenTelemetry convention has it); otherwise tracing is switched off, so
 * the spans Effect would keep for nobody (one per request and per traced call) are not made.
 * The OpenTelemetry SDK (tens of MB once loaded) is only imported when it is used.
 * Tests pass their own span processor.
 */
export const tracingLayer = (processor: SpanProcessor) =>
  Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("@effect/opentelemetry/NodeSdk")),
      (NodeSdk) =>
        NodeSdk.layer(() => ({
          resource: { serviceName: process.env["OTEL_SERVICE_NAME"] ?? "model-gateway", serviceVersion: "0.1.0" },
          spanProcessor: processor
        }))
    )
  )

export const TracingLive = Layer.unwrap(
  Effect.gen(function* () {
    const app = yield* AppConfig
    if (app.otlpEndpoint === undefined || app.otlpEndpoint === "") return Layer.succeed(References.TracerEnabled, false)
    const url = `${trimEndChars(app.otlpEndpoint, "/")}/v1/traces`
    const [{ OTLPTraceExporter }, { BatchSpanProcessor }] = yield* Effect.promise(() =>
      Promise.all([import("@opentelemetry/exporter-trace-otlp-http"), import("@opentelemetry/sdk-trace-base")])
    )
    return tracingLayer(new BatchSpanProcessor(new OTLPTraceExporter({ url })))
  })
)
