import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ResponsesSettings } from "./ResponsesSettings.ts"
import { DecisionMethod, DecisionSettings } from "./DecisionSettings.ts"
import { ToolsSettings } from "./ToolsSettings.ts"
import { UsageSettings } from "./UsageSettings.ts"
import { ImageFamily, ImageSettings } from "./ImageSettings.ts"
import { AudioSettings, TimestampGranularity, TranscriptionFormat } from "./AudioSettings.ts"
import { ResilienceSettings } from "./ResilienceSettings.ts"
import { AccessLogSettings } from "./AccessLogSettings.ts"
import { MetricsSettings } from "./MetricsSettings.ts"
import { BillingSettings, LimitSettings } from "./LimitSettings.ts"
import { BodyLimitSettings, JsonLimitSettings } from "./RequestLimitSettings.ts"

/**
 * The shape of `gateway.yaml`. Keys are snake_case like the wire format they configure.
 * Cross-references (a deployment's provider, a fallback's model) are checked after decoding
 * in `Services/GatewayConfigLoader.ts`, where the file name is known.
 */

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))
const NonNegative = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
const Identifier = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/, {
    expected: "an identifier of letters, digits and . _ : / @ - (at most 128 characters)"
  })
)
const HttpUrl = Schema.String.check(
  Schema.isPattern(/^https?:\/\/[^\s]+$/, { expected: "an http(s) URL" })
)
const OptionalHttpUrl = Schema.String.check(
  Schema.isPattern(/^(https?:\/\/[^\s]+)?$/, { expected: "an http(s) URL" })
)

/** `mock` answers in-process, without a network or a key (see src/Providers/Mock). */
export const ProviderKind = Schema.Literals(["openai", "anthropic", "gemini", "openai-compatible", "mock"])
export type ProviderKind = typeof ProviderKind.Type

export const ProviderTimeouts = Schema.Struct({
  /** Opening the TCP/TLS connection. */
  connect_ms: withDefault(PositiveInt, 10_000),
  /** From sending the request to the first byte of the response body. */
  first_byte_ms: withDefault(PositiveInt, 60_000),
  /** Longest silence allowed between two body chunks. */
  idle_ms: withDefault(PositiveInt, 60_000),
  /** Whole attempt, headers to last byte. */
  total_ms: withDefault(PositiveInt, 600_000)
})
export type ProviderTimeouts = typeof ProviderTimeouts.Type

export const ProviderConfig = Schema.Struct({
  id: Identifier,
  kind: ProviderKind,
  /** Required for every kind but `mock` (checked in GatewayConfigLoader.ts); "" when left out. */
  base_url: withDefault(OptionalHttpUrl, ""),
  api_key: Schema.optionalKey(Schema.RedactedFromValue(Schema.String)),
  /** For `openai-compatible`: a named quirk profile (groq, mistral, deepseek, together, vllm, ollama). */
  profile: Schema.optionalKey(Schema.String),
  /** Extra headers sent on every upstream request (for example an organisation id). */
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  timeouts: withDefault(ProviderTimeouts, {})
})
export type ProviderConfig = typeof ProviderConfig.Type

export const ModelKind = Schema.Literals(["chat", "embedding", "image", "transcription", "decision"])
export type ModelKind = typeof ModelKind.Type

export const Deployment = Schema.Struct({
  provider: Identifier,
  /** The model name the provider knows. */
  model: Schema.NonEmptyString,
  weight: withDefault(Schema.Finite.check(Schema.isGreaterThan(0)), 1)
})
export type Deployment = typeof Deployment.Type

export const Capabilities = Schema.Struct({
  vision: withDefault(Schema.Boolean, false),
  audio_input: withDefault(Schema.Boolean, false),
  video_input: withDefault(Schema.Boolean, false),
  file_input: withDefault(Schema.Boolean, false),
  tools: withDefault(Schema.Boolean, false),
  structured_output: withDefault(Schema.Boolean, false),
  logprobs: withDefault(Schema.Boolean, false),
  reasoning: withDefault(Schema.Boolean, false),
  context_length: Schema.optionalKey(PositiveInt),
  max_output_tokens: Schema.optionalKey(PositiveInt),
  /** Embedding models: output size, and whether `dimensions` may shorten it. */
  dimensions: Schema.optionalKey(PositiveInt),
  matryoshka: withDefault(Schema.Boolean, false),
  /** Transcription models: what the upstream model itself can produce (see AudioSettings.ts). */
  response_formats: withDefault(Schema.Array(TranscriptionFormat), ["json"]),
  timestamp_granularities: withDefault(Schema.Array(TimestampGranularity), []),
  translation: withDefault(Schema.Boolean, false)
})
export type Capabilities = typeof Capabilities.Type

export const ImageOptions = Schema.Struct({
  aspect_ratios: withDefault(Schema.Array(Schema.String), []),
  qualities: withDefault(Schema.Array(Schema.String), []),
  resolutions: withDefault(Schema.Array(Schema.String), []),
  sizes: withDefault(Schema.Array(Schema.String), []),
  output_formats: withDefault(Schema.Array(Schema.String), []),
  image_input: withDefault(Schema.Boolean, false),
  /** The upstream API semantics; inferred from the provider and model name when absent (`ImageModel.ts`). */
  family: Schema.optionalKey(ImageFamily),
  /** `/v1/images/generations` only: `style` and `background` values. */
  styles: withDefault(Schema.Array(Schema.String), []),
  backgrounds: withDefault(Schema.Array(Schema.String), []),
  /** Largest `n` of one request. */
  max_n: withDefault(PositiveInt, 1),
  /** The model rewrites prompts (and reports `revised_prompt`). */
  prompt_rewriting: withDefault(Schema.Boolean, false),
  /** Most `input_references` of one request, when `image_input` is on. */
  max_input_images: withDefault(PositiveInt, 1)
})
export type ImageOptions = typeof ImageOptions.Type

/** Prices in US dollars. Token prices are per million tokens. */
export const Pricing = Schema.Struct({
  input_per_mtok: Schema.optionalKey(NonNegative),
  output_per_mtok: Schema.optionalKey(NonNegative),
  cached_input_per_mtok: Schema.optionalKey(NonNegative),
  cache_write_per_mtok: Schema.optionalKey(NonNegative),
  per_image: Schema.optionalKey(NonNegative),
  per_audio_second: Schema.optionalKey(NonNegative),
  per_request: Schema.optionalKey(NonNegative)
})
export type Pricing = typeof Pricing.Type

export const ModelConfig = Schema.Struct({
  id: Identifier,
  kind: ModelKind,
  owned_by: Schema.optionalKey(Schema.String),
  /** Unix seconds shown as `created`; defaults to the config file's modification time. */
  created: Schema.optionalKey(Schema.Int),
  deployments: Schema.Array(Deployment).check(Schema.isMinLength(1)),
  capabilities: withDefault(Capabilities, {}),
  image: Schema.optionalKey(ImageOptions),
  pricing: withDefault(Pricing, {}),
  /** Model ids tried, in order, when every deployment of this model failed. */
  fallbacks: withDefault(Schema.Array(Identifier), []),
  /** Decision models: `logprobs` or `sampled`; by default from the capabilities (see DecisionModel.ts). */
  decision_method: Schema.optionalKey(DecisionMethod)
})
export type ModelConfig = typeof ModelConfig.Type

export const ServerSettings = Schema.Struct({
  /**
   * Largest body of `POST /v1/chat/completions`, in MiB. Large enough for one 100 MB video as
   * base64 plus 50 MB of files. The other routes have their own caps (`body_limits`).
   */
  body_limit_mb: withDefault(PositiveInt, 200),
  body_limits: withDefault(BodyLimitSettings, {}),
  json_limits: withDefault(JsonLimitSettings, {}),
  /** How long in-flight requests may run after SIGTERM. */
  shutdown_grace_seconds: withDefault(PositiveInt, 20),
  /** SSE comment sent while an upstream stream is silent. */
  keepalive_seconds: withDefault(PositiveInt, 15),
  /** How often freed native memory is handed back to the system (glibc on Node 26.1+). 0: never. */
  malloc_trim_seconds: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 10),
  /** The gateway's address as clients reach it (links it hands out); unset: taken from each request's Host. */
  public_base_url: Schema.optionalKey(HttpUrl)
})
export type ServerSettings = typeof ServerSettings.Type

export const AuthSettings = Schema.Struct({
  /** How long a verified key is trusted before the database is asked again (revocation delay across instances). */
  cache_ttl_seconds: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 10),
  /**
   * Wrong admin tokens (on `/admin`, a console sign-in, or a forged console cookie) one client
   * address may send per minute; past it, 429 with Retry-After until the oldest ages out.
   */
  failed_admin_attempts_per_minute: withDefault(PositiveInt, 10)
})
export type AuthSettings = typeof AuthSettings.Type


export const S3Settings = Schema.Struct({
  /** Endpoint of any S3-compatible service; omit for AWS itself. */
  endpoint: Schema.optionalKey(HttpUrl),
  bucket: Schema.NonEmptyString,
  region: withDefault(Schema.String, "us-east-1"),
  access_key_id: Schema.optionalKey(Schema.RedactedFromValue(Schema.String)),
  secret_access_key: Schema.optionalKey(Schema.RedactedFromValue(Schema.String)),
  /** Path-style addressing (http://host/bucket/key), needed by most self-hosted services. */
  force_path_style: withDefault(Schema.Boolean, true),
  /** Key prefix inside the bucket. */
  prefix: withDefault(Schema.String, "")
})
export type S3Settings = typeof S3Settings.Type

export const ExtractionSettings = Schema.Struct({
  /** Wall-clock bound for one document's extraction (or one page's or sitemap's parse). */
  timeout_ms: withDefault(PositiveInt, 60_000),
  /** Memory of one extraction worker: its heap, and heap plus buffers together (a watchdog stops it past this). */
  max_memory_mb: withDefault(PositiveInt, 512),
  /** Bytes a ZIP-based document (DOCX, XLSX, PPTX, ODF, iWork) may inflate to, all parts together. */
  max_unzipped_mb: withDefault(PositiveInt, 128),
  /** How many times its packed size one part of such a document may inflate to (past its first MiB). */
  max_zip_ratio: withDefault(PositiveInt, 100),
  /** Pages of a PDF read at most; a PDF declaring more is refused. */
  max_pages: withDefault(PositiveInt, 2_000),
  /** Parallel extraction workers. */
  workers: withDefault(PositiveInt, 2),
  /** Pages rendered as images for vision models. */
  max_rendered_pages: withDefault(PositiveInt, 8)
})
export type ExtractionSettings = typeof ExtractionSettings.Type

export const FilesSettings = Schema.Struct({
  store: withDefault(Schema.Literals(["disk", "s3"]), "disk"),
  /** Disk store root; defaults to DATA_DIR/files. */
  directory: Schema.optionalKey(Schema.String),
  s3: Schema.optionalKey(S3Settings),
  max_upload_mb: withDefault(PositiveInt, 100),
  /**
   * Bytes of documents and images one chat request may carry, every source kind together
   * (`file_data`, `file_id`, `file_url`, `image_url`), after base64 decoding; a part repeated counts each time.
   */
  max_inline_mb: withDefault(PositiveInt, 50),
  /** Document (`file`) and image (`image_url`) parts one chat request may hold. */
  max_parts: withDefault(PositiveInt, 100),
  /** How often the expiry sweeper runs. */
  sweep_interval_seconds: withDefault(PositiveInt, 60),
  extraction: withDefault(ExtractionSettings, {})
})
export type FilesSettings = typeof FilesSettings.Type

export const FetchSettings = Schema.Struct({
  /** Allows private, loopback and link-local targets. Only for tests and closed networks. */
  allow_private_networks: withDefault(Schema.Boolean, false),
  max_bytes_mb: withDefault(PositiveInt, 50),
  timeout_ms: withDefault(PositiveInt, 20_000),
  max_redirects: withDefault(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 5)
})
export type FetchSettings = typeof FetchSettings.Type

export const RoutingSettings = Schema.Struct({
  /** Upper bound on provider calls for one request, retries and fallbacks included. */
  max_attempts: withDefault(PositiveInt, 4),
  /** Calls to one model's deployments before moving on to its fallbacks. */
  attempts_per_model: withDefault(PositiveInt, 2),
  base_backoff_ms: withDefault(PositiveInt, 200),
  max_backoff_ms: withDefault(PositiveInt, 5_000),
  /** Whole-request budget: a non-streamed call, or a stream until its first content. */
  deadline_ms: withDefault(PositiveInt, 120_000),
  /** Consecutive failures that open a deployment's circuit, and how long it stays open. */
  failure_threshold: withDefault(PositiveInt, 5),
  cooldown_seconds: withDefault(PositiveInt, 30)
})
export type RoutingSettings = typeof RoutingSettings.Type

export const GatewayConfig = Schema.Struct({
  server: withDefault(ServerSettings, {}),
  routing: withDefault(RoutingSettings, {}),
  files: withDefault(FilesSettings, {}),
  responses: withDefault(ResponsesSettings, {}),
  fetch: withDefault(FetchSettings, {}),
  audio: withDefault(AudioSettings, {}),
  auth: withDefault(AuthSettings, {}),
  usage: withDefault(UsageSettings, {}),
  decisions: withDefault(DecisionSettings, {}),
  images: withDefault(ImageSettings, {}),
  resilience: withDefault(ResilienceSettings, {}),
  metrics: withDefault(MetricsSettings, {}),
  providers: withDefault(Schema.Array(ProviderConfig), []),
  models: withDefault(Schema.Array(ModelConfig), []),
  tools: withDefault(ToolsSettings, {}),
  billing: withDefault(BillingSettings, {}),
  limits: withDefault(LimitSettings, {}),
  access_log: withDefault(AccessLogSettings, {})
})
export type GatewayConfig = typeof GatewayConfig.Type
