import type { AudioFormat } from "./AudioFormat.ts"
import type { TimestampGranularity, TranscriptionFormat } from "./AudioSettings.ts"

export type { TimestampGranularity, TranscriptionFormat } from "./AudioSettings.ts"

/** `transcribe` keeps the spoken language (spec 4.2); `translate` always gives English (4.3). */
export type TranscriptionTask = "transcribe" | "translate"

/** A validated speech-to-text request, before its audio is read. */
export interface TranscriptionRequest {
  readonly task: TranscriptionTask
  readonly model: string
  /** ISO 639-1, validated; transcriptions only. */
  readonly language?: string
  readonly prompt?: string
  readonly responseFormat: TranscriptionFormat
  readonly temperature?: number
  /** Asked granularities; only with `verbose_json`. Empty: the upstream's default (segments). */
  readonly granularities: ReadonlyArray<TimestampGranularity>
  /** The audio to fetch (transcriptions only) when no file was uploaded. */
  readonly url?: string
}

/** The audio of a request as the gateway measured it, on local disk for the request's lifetime. */
export interface MeasuredAudio {
  readonly path: string
  readonly bytes: number
  /** The name the client gave (or a fetched URL's), for messages and upstream file names. */
  readonly filename: string
  readonly format: AudioFormat
  /** Measured from the file, whatever any upstream reports. */
  readonly durationSeconds: number
}

export interface TranscriptSegment {
  readonly id: number
  readonly start: number
  readonly end: number
  readonly text: string
  /** Whatever else the upstream said about the segment (OpenAI: seek, tokens, avg_logprob, ...). */
  readonly extra?: Readonly<Record<string, unknown>>
}

export interface TranscriptWord {
  readonly word: string
  readonly start: number
  readonly end: number
}

/**
 * What an upstream answered, in one of two shapes: a body already in the asked format (`text`,
 * `srt`, `vtt`) passed on as it is, or structured data (from `json` or `verbose_json`, or a
 * provider's own shape) the gateway renders itself.
 */
export type UpstreamTranscript =
  | { readonly _tag: "Body"; readonly format: "text" | "srt" | "vtt"; readonly body: string }
  | {
    readonly _tag: "Structured"
    readonly text: string
    /** As the upstream reported it (a code or a name); normalised when rendered. */
    readonly language?: string
    readonly segments?: ReadonlyArray<TranscriptSegment>
    readonly words?: ReadonlyArray<TranscriptWord>
  }

/**
 * What to ask one upstream model for: the format to request and the granularities to send,
 * chosen so that the client's format is either the upstream's own or built from what it gives.
 */
export interface UpstreamAsk {
  readonly format: TranscriptionFormat
  readonly granularities: ReadonlyArray<TimestampGranularity>
}
