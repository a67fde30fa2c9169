import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/** `billing:` in gateway.yaml: credit balances and spend limits (set per project and key through the admin API). */
export const BillingSettings = Schema.Struct({
  /**
   * A model without any price is free unless this is true; then a project with a balance or a
   * spend limit cannot use it (400 naming the model): unknown cost fails closed.
   */
  require_prices: withDefault(Schema.Boolean, false),
  /** A reservation its instance never settled (it crashed) stops counting after this long. */
  reservation_ttl_seconds: withDefault(PositiveInt, 900),
  /** How often each instance reloads the balances, limits and rate limits it admits by. */
  refresh_seconds: withDefault(PositiveInt, 5),
  /**
   * Slices of a busy key's balance and spend limits taken by each instance in one transaction
   * and admitted from locally (docs/ARCHITECTURE.md, "Leases"). `min_rate`: below this many
   * admissions a second a key's requests hold a reservation each; `ttl_seconds`: a lease its
   * instance stopped renewing (it died) is free again after this; `horizon_ms`: a slice covers
   * this long at the recent admission rate. A leased request is settled with its usage row, as a
   * request holding its own reservation is (test/Http/Faults/SettlementFaults.test.ts proves both
   * exact with the database's connections killed under load).
   */
  leases: withDefault(
    Schema.Struct({
      enabled: withDefault(Schema.Boolean, true),
      min_rate: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 20),
      ttl_seconds: withDefault(PositiveInt, 60),
      horizon_ms: withDefault(PositiveInt, 1000)
    }),
    {}
  )
})
export type BillingSettings = typeof BillingSettings.Type

/** Requests and tokens per minute; either may be absent (no limit). */
export const RateLimit = Schema.Struct({
  rpm: Schema.optionalKey(PositiveInt),
  tpm: Schema.optionalKey(PositiveInt)
})
export type RateLimit = typeof RateLimit.Type

export const StoreFailurePolicy = Schema.Literals(["deny", "allow"])
export type StoreFailurePolicy = typeof StoreFailurePolicy.Type

/** `limits:` in gateway.yaml: default rate limits and what happens when their store is away. */
export const LimitSettings = Schema.Struct({
  /** Applied to every key and every project that has no limit of its own (set through the admin API). */
  defaults: withDefault(
    Schema.Struct({
      key: withDefault(RateLimit, {}),
      project: withDefault(RateLimit, {})
    }),
    {}
  ),
  /**
   * When the store of balances (the database) or of rate limits (Redis) cannot answer:
   * `deny` answers 503 and sends nothing upstream, `allow` admits the request unchecked. Both
   * are logged and counted.
   */
  on_store_failure: withDefault(
    Schema.Struct({
      billing: withDefault(StoreFailurePolicy, "deny"),
      rate_limits: withDefault(StoreFailurePolicy, "allow")
    }),
    {}
  ),
  /**
   * Windows kept in Redis or Postgres (shared by instances): each instance takes a share of a busy
   * window in one script call or transaction and admits from it for `span_ms` (docs/ARCHITECTURE.md, "Leases").
   */
  window_leases: withDefault(
    Schema.Struct({
      enabled: withDefault(Schema.Boolean, true),
      span_ms: withDefault(PositiveInt, 1000)
    }),
    {}
  )
})
export type LimitSettings = typeof LimitSettings.Type
