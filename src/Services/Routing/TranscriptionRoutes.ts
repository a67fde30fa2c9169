import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { fallbackRoutes } from "./FallbackRoutes.ts"
import type { TranscriptionRequest } from "../../Domain/Transcription.ts"
import { planTranscription } from "../../Domain/TranscriptionGate.ts"
import type { TranscriptionProvider } from "../../Providers/TranscriptionProvider.ts"

type ProviderLookup = (providerId: string) => TranscriptionProvider | undefined

/**
 * The models a speech-to-text request may be routed to, in order: its own, then each
 * transcription fallback whose catalogue capabilities cover the request (response format,
 * translation, timestamp granularities), so a fallback never changes what the client gets.
 * Each keeps only the deployments whose provider has a speech-to-text adapter; a model left
 * with none is skipped.
 */
export const transcriptionRoutes = (
  model: ModelConfig,
  request: TranscriptionRequest,
  find: (id: string) => ModelConfig | undefined,
  provider: ProviderLookup
): ReadonlyArray<ModelConfig> =>
  fallbackRoutes(model, "transcription", find, (d) => provider(d.provider) !== undefined, (m) => "format" in planTranscription(request, m))
