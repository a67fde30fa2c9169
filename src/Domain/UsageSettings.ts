import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/** `usage:` in gateway.yaml: how the usage ledger writes, keeps and sheds events. */
export const UsageSettings = Schema.Struct({
  flush_interval_ms: withDefault(PositiveInt, 1000),
  max_batch: withDefault(PositiveInt, 500),
  /** Monthly partitions wholly older than this are dropped. 0 keeps everything. */
  retention_days: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 400),
  /** Events kept in memory while the database is unreachable; past it the oldest are shed (and counted). */
  max_buffered: withDefault(PositiveInt, 200_000),
  /**
   * Where events still unwritten at shutdown are spilled, to be written on the next start;
   * defaults to DATA_DIR/usage-spill.
   */
  spill_directory: Schema.optionalKey(Schema.NonEmptyString)
})
export type UsageSettings = typeof UsageSettings.Type
