import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

/** Process settings that come from the environment (everything else is in gateway.yaml). */
export interface AppSettings {
  readonly port: number
  readonly host: string
  /** Explicit GATEWAY_CONFIG, if set. */
  readonly configPath: string | undefined
  readonly databaseUrl: Redacted.Redacted<string> | undefined
  readonly dataDir: string
  readonly adminToken: Redacted.Redacted<string> | undefined
  readonly otlpEndpoint: string | undefined
  readonly redisUrl: Redacted.Redacted<string> | undefined
  /** Prefix of every Redis key this gateway writes, so deployments can share one Redis. */
  readonly redisPrefix: string
  readonly logLevel: string
}

const optionalString = (name: string) => Config.String(name).pipe(Config.option, Config.map(Option.getOrUndefined))
const optionalSecret = (name: string) =>
  Config.String(name).pipe(
    Config.option,
    Config.map((value) => (Option.isSome(value) && value.value !== "" ? Redacted.make(value.value) : undefined))
  )

/** The shortest GATEWAY_ADMIN_TOKEN accepted: 32 characters, 128 bits or more as hex. */
export const minAdminTokenLength = 32

/**
 * Why an admin token is refused at start-up, or undefined. It opens every project, key and
 * balance, and sign-in attempts are only throttled, not stopped: it must not be guessable. The
 * token itself is never part of the message.
 */
export const adminTokenProblem = (token: string): string | undefined =>
  token.length >= minAdminTokenLength
    ? undefined
    : `is ${token.length} characters long; it must be at least ${minAdminTokenLength}, since it opens the whole admin API. Generate one with: openssl rand -hex 32`

const adminTokenConfig = Config.schema(
  Schema.String.check(Schema.makeFilter((token: string) => (token === "" ? undefined : adminTokenProblem(token)))),
  "GATEWAY_ADMIN_TOKEN"
).pipe(
  Config.option,
  Config.map((value) => (Option.isSome(value) && value.value !== "" ? Redacted.make(value.value) : undefined))
)

export const appSettingsConfig: Config.Config<AppSettings> = Config.all({
  // 0 asks the OS for a free port (tests, side-by-side runs).
  port: Config.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 })), "PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  configPath: optionalString("GATEWAY_CONFIG"),
  databaseUrl: optionalSecret("DATABASE_URL"),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  adminToken: adminTokenConfig,
  otlpEndpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
  redisUrl: optionalSecret("REDIS_URL"),
  redisPrefix: Config.String("REDIS_PREFIX").pipe(Config.withDefault("gateway:")),
  logLevel: Config.String("LOG_LEVEL").pipe(Config.withDefault("info"))
})

export class AppConfig extends Context.Service<AppConfig, AppSettings>()("gateway/AppConfig") {
  static readonly layer = Layer.effect(AppConfig, Effect.map(appSettingsConfig, AppConfig.of))
  static readonly make = (settings: AppSettings) => Layer.succeed(AppConfig, AppConfig.of(settings))
}

/** A configuration error as one line: `PORT: expected a value between 0 and 65535`. */
export const formatConfigError = (error: Config.ConfigError): string => {
  const cause = error.cause
  if (!Schema.isSchemaError(cause)) return error.message.split("\n")[0] ?? "configuration error"
  const first = SchemaIssue.makeFormatterStandardSchemaV1()(cause.issue).issues[0]
  const path = (first?.path ?? []).map(String).join(".")
  const message = (first?.message ?? "invalid").replace(/^Expected /, "expected ")
  return path === "" ? message : `${path}: ${message}`
}
