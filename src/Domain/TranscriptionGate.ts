import type { TimestampGranularity } from "./AudioSettings.ts"
import type { ModelConfig } from "./GatewayConfig.ts"
import { GatewayError } from "./GatewayError.ts"
import type { TranscriptionRequest, UpstreamAsk } from "./Transcription.ts"

/**
 * What to ask `model` for so that the client gets `request.responseFormat`, or the 400 saying
 * why this model cannot serve the request. The model's catalogue data says what the upstream
 * produces itself (`response_formats`, `timestamp_granularities`, `translation`):
 *  - a format the upstream has is asked for as it is;
 *  - `json` and `text` come from any transcript;
 *  - `srt`, `vtt` and `verbose_json` are built from segments, so they need an upstream that
 *    gives `verbose_json`; without one the answer is a 400 naming `response_format`, never
 *    subtitles with invented timestamps;
 *  - word timestamps only come from an upstream that has them.
 * The router applies the same plan to fallback models, so a fallback never changes the answer.
 */
export const planTranscription = (request: TranscriptionRequest, model: ModelConfig): UpstreamAsk | GatewayError => {
  const c = model.capabilities
  const native = c.response_formats
  const granular = c.timestamp_granularities
  if (request.task === "translate" && !c.translation) {
    return GatewayError.invalid(`The model '${model.id}' does not translate audio; use a model with translation support.`, "model", "unsupported_model")
  }
  if (request.granularities.includes("word") && !granular.includes("word")) {
    return GatewayError.invalid(
      `The model '${model.id}' does not give word timestamps; 'timestamp_granularities' may only include ${granular.length === 0 ? "nothing" : granular.map((g) => `'${g}'`).join(" and ")} for it.`,
      "timestamp_granularities",
      "unsupported_parameter"
    )
  }
  // Only granularities the upstream lists are sent; segments are verbose_json's default.
  const sendable = (wanted: ReadonlyArray<TimestampGranularity>) => wanted.filter((g) => granular.includes(g))
  const format = request.responseFormat
  if (native.includes(format)) return { format, granularities: format === "verbose_json" ? sendable(request.granularities) : [] }
  if (format === "json" || format === "text") {
    const from = (["json", "text", "verbose_json"] as const).find((f) => native.includes(f))
    if (from !== undefined) return { format: from, granularities: [] }
  } else if (native.includes("verbose_json")) {
    // Subtitles (the only formats left here) come from verbose_json's default segments.
    return { format: "verbose_json", granularities: [] }
  }
  return GatewayError.invalid(
    `The model '${model.id}' cannot produce '${format}': ${format === "json" || format === "text" ? "it has no text output" : "it gives no timestamps to build it from"}. It supports ${servableFormats(model).join(", ")}.`,
    "response_format",
    "unsupported_response_format"
  )
}

/** Every format the gateway can serve from this model (what `GET /v1/models` shows). */
export const servableFormats = (model: ModelConfig): ReadonlyArray<string> => {
  const native = model.capabilities.response_formats
  const out = new Set<string>()
  if (native.some((f) => f === "json" || f === "text" || f === "verbose_json")) {
    out.add("json")
    out.add("text")
  }
  for (const f of native) out.add(f)
  if (native.includes("verbose_json")) for (const f of ["srt", "verbose_json", "vtt"]) out.add(f)
  return ["json", "text", "srt", "verbose_json", "vtt"].filter((f) => out.has(f))
}
