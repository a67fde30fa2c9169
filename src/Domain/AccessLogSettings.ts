import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/** `access_log:` in gateway.yaml: one line per request on stdout. */
export const AccessLogSettings = Schema.Struct({
  enabled: withDefault(Schema.Boolean, true),
  /** `auto`: the human line when stdout is a terminal, JSON otherwise. */
  format: withDefault(Schema.Literals(["auto", "json", "text"]), "auto"),
  /** The level of a line (server errors are always `error`); shown when LOG_LEVEL lets it through. */
  level: withDefault(Schema.Literals(["debug", "info", "warn"]), "info")
})
export type AccessLogSettings = typeof AccessLogSettings.Type
