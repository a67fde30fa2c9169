import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The `images` section of gateway.yaml, and the image API families a catalogue entry can speak.
 * Kept apart from `GatewayConfig.ts`, which only points at it.
 */

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))
const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/**
 * Which upstream API semantics an image model follows: OpenAI's `dall-e-2`, `dall-e-3` and GPT
 * image models (`gpt-image`), Gemini models with image output through `generateContent`
 * (`gemini`), Imagen through `:predict` (`imagen`), and OpenAI-style image servers whose quirks
 * are their provider's profile (`openai-compatible`).
 */
export const ImageFamily = Schema.Literals(["dall-e-2", "dall-e-3", "gpt-image", "gemini", "imagen", "openai-compatible"])
export type ImageFamily = typeof ImageFamily.Type

export const ImageSettings = Schema.Struct({
  /** How long a `response_format: url` link works. The spec promises about an hour. */
  url_ttl_seconds: withDefault(PositiveInt, 3600),
  /**
   * HMAC key that signs image links; every instance behind one public URL needs the same one.
   * Unset: a random key per process (links then work only on the instance that made them).
   */
  url_secret: Schema.optionalKey(Schema.RedactedFromValue(Schema.String.check(Schema.isMinLength(16)))),
  /** How often expired linked images are deleted. */
  sweep_interval_seconds: withDefault(PositiveInt, 60),
  /** Largest input reference image, after decoding or download. */
  max_input_image_mb: withDefault(PositiveInt, 20)
})
export type ImageSettings = typeof ImageSettings.Type
