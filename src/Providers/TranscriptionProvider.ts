import type * as Effect from "effect/Effect"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { MeasuredAudio, TranscriptionRequest, UpstreamAsk, UpstreamTranscript } from "../Domain/Transcription.ts"
import type { ChatTarget } from "./ChatProvider.ts"

/** Which upstream model serves the call, what the catalogue says about it, and what to ask it for. */
export interface TranscriptionTarget extends ChatTarget {
  readonly ask: UpstreamAsk
}

/**
 * The port every speech-to-text provider implements. The request arrives validated and
 * planned against the model (`target.ask`); the audio is a measured file on local disk, which
 * the adapter reads for each attempt (never whole into memory where it can stream it). The
 * adapter answers in the asked format, or with structured data the gateway renders.
 */
export interface TranscriptionProvider {
  readonly id: string
  readonly transcribe: (
    request: TranscriptionRequest,
    audio: MeasuredAudio,
    target: TranscriptionTarget
  ) => Effect.Effect<UpstreamTranscript, GatewayError>
}
