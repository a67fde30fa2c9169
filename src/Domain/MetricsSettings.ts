import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** `metrics:` in gateway.yaml: the Prometheus endpoint `GET /metrics`. */
export const MetricsSettings = Schema.Struct({
  /** Off by default: nothing is counted and `/metrics` is not served. */
  enabled: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
  /** When set, scrapes must send `Authorization: Bearer <token>` (write `${METRICS_TOKEN}`). */
  token: Schema.optionalKey(Schema.RedactedFromValue(Schema.String.check(Schema.isNonEmpty())))
})
export type MetricsSettings = typeof MetricsSettings.Type
