import { type TimestampGranularity, type TranscriptionFormat, transcriptionFormats } from "./AudioSettings.ts"
import { GatewayError } from "./GatewayError.ts"
import { isLanguageCode } from "./LanguageCodes.ts"
import type { TranscriptionRequest, TranscriptionTask } from "./Transcription.ts"

/** Form fields as sent: a field may repeat (`timestamp_granularities[]`). */
export type FormFields = Readonly<Record<string, ReadonlyArray<string>>>

const fieldsOf: Readonly<Record<TranscriptionTask, ReadonlySet<string>>> = {
  transcribe: new Set([
    "model",
    "url",
    "language",
    "prompt",
    "response_format",
    "temperature",
    "timestamp_granularities[]",
    "timestamp_granularities",
    "stream"
  ]),
  translate: new Set(["model", "prompt", "response_format", "temperature"])
}

const invalid = (param: string, detail: string, code?: string) => GatewayError.invalid(`Invalid value for '${param}': ${detail}.`, param, code)

const single = (fields: FormFields, name: string): string | undefined | GatewayError => {
  const values = fields[name]
  if (values === undefined || values.length === 0) return undefined
  if (values.length > 1) return invalid(name, "the field was sent more than once")
  return values[0]
}

const isFormat = (value: string): value is TranscriptionFormat => (transcriptionFormats as ReadonlyArray<string>).includes(value)

/**
 * The form fields of `POST /v1/audio/transcriptions` (task `transcribe`, spec 4.2) or
 * `/v1/audio/translations` (`translate`, 4.3) -> a request, or a 400 naming the first bad field.
 * Whether a file was sent is the route's concern; `url` is taken here and checked against it.
 */
export const decodeTranscriptionFields = (task: TranscriptionTask, fields: FormFields): TranscriptionRequest | GatewayError => {
  const known = fieldsOf[task]
  for (const name of Object.keys(fields)) {
    if (name === "url" && task === "translate") return GatewayError.invalid("'url' is not supported by translations; upload the audio as 'file'.", "url")
    if (!known.has(name)) return GatewayError.invalid(`Unrecognized request argument supplied: '${name}'.`, name, "unknown_parameter")
  }
  const values: Record<string, string | undefined> = {}
  for (const name of ["model", "url", "language", "prompt", "response_format", "temperature", "stream"]) {
    const value = single(fields, name)
    if (value instanceof GatewayError) return value
    values[name] = value
  }
  const model = values["model"]?.trim()
  if (model === undefined || model === "") return GatewayError.invalid("Missing required parameter: 'model'.", "model")

  const stream = values["stream"]
  if (stream !== undefined && stream !== "false") {
    return GatewayError.invalid("'stream' is not supported by this endpoint; the transcript is returned whole.", "stream", "unsupported_parameter")
  }

  const language = values["language"]?.trim()
  if (language !== undefined && language !== "" && !isLanguageCode(language)) {
    return invalid("language", `'${language}' is not an ISO-639-1 language code (two lower-case letters, e.g. 'en')`, "unsupported_language")
  }

  const format = values["response_format"]?.trim() || "json"
  if (!isFormat(format)) return invalid("response_format", `expected one of ${transcriptionFormats.join(", ")}, got '${format}'`)

  const rawTemperature = values["temperature"]?.trim()
  let temperature: number | undefined
  if (rawTemperature !== undefined && rawTemperature !== "") {
    temperature = Number(rawTemperature)
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 1) return invalid("temperature", "expected a number from 0 to 1")
  }

  const granularities: Array<TimestampGranularity> = []
  for (const name of ["timestamp_granularities[]", "timestamp_granularities"]) {
    for (const raw of fields[name] ?? []) {
      // Some clients send the list as one comma-separated value.
      for (const item of raw.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
        if (item !== "word" && item !== "segment") return invalid(name, `expected 'word' or 'segment', got '${item}'`)
        if (!granularities.includes(item)) granularities.push(item)
      }
    }
  }
  if (granularities.length > 0 && format !== "verbose_json") {
    return GatewayError.invalid("'timestamp_granularities' can only be used with 'response_format' 'verbose_json'.", "timestamp_granularities")
  }

  const url = values["url"]?.trim()
  const prompt = values["prompt"]
  return {
    task,
    model,
    responseFormat: format,
    granularities,
    ...(language === undefined || language === "" ? {} : { language }),
    ...(prompt === undefined || prompt === "" ? {} : { prompt }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(url === undefined || url === "" ? {} : { url })
  }
}
