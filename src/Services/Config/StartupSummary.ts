import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import type { GatewayConfig } from "../../Domain/GatewayConfig.ts"
import { AppConfig, type AppSettings } from "./AppConfig.ts"
import { GatewayConfigFile } from "./GatewayConfigLoader.ts"
import { keyHint, lacksKey } from "./ProviderKeys.ts"

/**
 * What the gateway says about itself once it listens, one log line per topic: the config file in
 * use, which providers have keys and which do not (and how to give them one), the models served,
 * storage, Redis, the admin API and console (their URLs, or how to turn them on), metrics and
 * traces. An operator reads the first screen of output and knows what runs and what is missing.
 */
export interface StartupFacts {
  readonly url: string
  readonly file: string
  readonly config: GatewayConfig
  readonly keyVariables: Readonly<Record<string, string>>
  readonly app: Pick<AppSettings, "databaseUrl" | "dataDir" | "redisUrl" | "adminToken" | "otlpEndpoint">
}

/** A URL a person can open: a wildcard bind address becomes localhost. */
export const openableUrl = (address: string): string =>
  address.replace(/^(https?:\/\/)(0\.0\.0\.0|\[::\]|::)(?=[:/]|$)/, "$1localhost")

const list = (items: ReadonlyArray<string>) => (items.length === 0 ? "none" : items.join(", "))

export const startupSummary = (facts: StartupFacts): ReadonlyArray<string> => {
  const { config, app, url } = facts
  const withKey = config.providers.filter((p) => !lacksKey(p))
  const keyless = config.providers.flatMap((p, i) => (lacksKey(p) ? [`${p.id} (${keyHint(p.id, facts.keyVariables, i)})`] : []))
  const kinds = new Map<string, Array<string>>()
  for (const model of config.models) kinds.set(model.kind, [...(kinds.get(model.kind) ?? []), model.id])
  const models = [...kinds].map(([kind, ids]) => `${kind}: ${ids.join(", ")}`).join("; ")
  const lines = [
    `config file: ${facts.file}`,
    `providers with a key: ${list(withKey.map((p) => `${p.id} (${p.kind})`))}`,
    ...(keyless.length === 0 ? [] : [`providers without a key (their models answer 503): ${keyless.join("; ")}`]),
    `models served (${config.models.length}): ${models === "" ? "none" : models}`,
    app.databaseUrl === undefined
      ? `storage: embedded (PGlite) in ${app.dataDir}; set DATABASE_URL to use Postgres`
      : "storage: Postgres (DATABASE_URL)",
    app.redisUrl === undefined
      ? "Redis: off (rate limits and routing health kept per process); set REDIS_URL to share them across instances"
      : "Redis: on (REDIS_URL)",
    app.adminToken === undefined
      ? "admin API and console: off; set GATEWAY_ADMIN_TOKEN (at least 32 characters: openssl rand -hex 32) to turn on /admin and /console"
      : `admin API: ${url}/admin; console: ${url}/console (sign in with GATEWAY_ADMIN_TOKEN)`,
    config.metrics.enabled
      ? `metrics: ${url}/metrics${config.metrics.token === undefined ? "" : " (Bearer metrics.token)"}`
      : "metrics: off; set metrics.enabled: true in the config file to serve /metrics",
    app.otlpEndpoint === undefined || app.otlpEndpoint === ""
      ? "traces: off; set OTEL_EXPORTER_OTLP_ENDPOINT to export them"
      : `traces: exported to ${app.otlpEndpoint}`
  ]
  return lines.map((line) => `start-up: ${line}`)
}

/** Logs the summary, at info, once the server listens. */
export const logStartupSummary: Effect.Effect<void, never, HttpServer.HttpServer | AppConfig | GatewayConfigFile> = Effect.gen(function* () {
  const app = yield* AppConfig
  const loaded = yield* GatewayConfigFile
  const server = yield* HttpServer.HttpServer
  const url = openableUrl(HttpServer.formatAddress(server.address))
  const lines = startupSummary({ url, file: loaded.file, config: loaded.config, keyVariables: loaded.keyVariables ?? {}, app })
  yield* Effect.forEach(lines, (line) => Effect.logInfo(line), { discard: true })
})
