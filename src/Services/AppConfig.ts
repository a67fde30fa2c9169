import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

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
  readonly logLevel: string
}

const optionalString = (name: string) => Config.String(name).pipe(Config.option, Config.map(Option.getOrUndefined))
const optionalSecret = (name: string) =>
  Config.String(name).pipe(
    Config.option,
    Config.map((value) => (Option.isSome(value) && value.value !== "" ? Redacted.make(value.value) : undefined))
  )

export const appSettingsConfig: Config.Config<AppSettings> = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  configPath: optionalString("GATEWAY_CONFIG"),
  databaseUrl: optionalSecret("DATABASE_URL"),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  adminToken: optionalSecret("GATEWAY_ADMIN_TOKEN"),
  otlpEndpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
  redisUrl: optionalSecret("REDIS_URL"),
  logLevel: Config.String("LOG_LEVEL").pipe(Config.withDefault("info"))
})

export class AppConfig extends Context.Service<AppConfig, AppSettings>()("gateway/AppConfig") {
  static readonly layer = Layer.effect(AppConfig, Effect.map(appSettingsConfig, AppConfig.of))
  static readonly make = (settings: AppSettings) => Layer.succeed(AppConfig, AppConfig.of(settings))
}
