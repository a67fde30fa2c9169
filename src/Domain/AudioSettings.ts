import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The response formats of spec 4.2 / 4.3. */
export const TranscriptionFormat = Schema.Literals(["json", "text", "srt", "verbose_json", "vtt"])
export type TranscriptionFormat = typeof TranscriptionFormat.Type
export const transcriptionFormats: ReadonlyArray<TranscriptionFormat> = TranscriptionFormat.literals

export const TimestampGranularity = Schema.Literals(["word", "segment"])
export type TimestampGranularity = typeof TimestampGranularity.Type

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))
const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/**
 * The `audio` key of gateway.yaml: the speech-to-text endpoints. Uploads are written to
 * `temp_dir` (the system's temporary directory by default) while a request runs and removed
 * when it ends.
 */
export const AudioSettings = Schema.Struct({
  /** Largest audio file accepted, in MiB like every other size limit (spec part 8: 25 MB). */
  max_file_mb: withDefault(PositiveInt, 25),
  temp_dir: Schema.optionalKey(Schema.NonEmptyString)
})
export type AudioSettings = typeof AudioSettings.Type
