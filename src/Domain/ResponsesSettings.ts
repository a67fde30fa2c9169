import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/** `responses:` in gateway.yaml: how long stored Responses API responses are kept. */
export const ResponsesSettings = Schema.Struct({
  /** A stored response (and its items) can be retrieved and continued for this many days. */
  retention_days: withDefault(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3650 })), 30),
  /** How often expired responses are deleted. */
  sweep_interval_seconds: withDefault(Schema.Int.check(Schema.isGreaterThan(0)), 3600)
})
export type ResponsesSettings = typeof ResponsesSettings.Type
