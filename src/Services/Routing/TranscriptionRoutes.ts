import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
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
): ReadonlyArray<ModelConfig> => {
  const usable = (m: ModelConfig): ModelConfig | undefined => {
    const deployments = m.deployments.filter((d) => provider(d.provider) !== undefined)
    if (deployments.length === 0) return undefined
    return deployments.length === m.deployments.length ? m : { ...m, deployments }
  }
  const routes: Array<ModelConfig> = []
  const own = usable(model)
  if (own !== undefined) routes.push(own)
  for (const id of model.fallbacks) {
    const fallback = find(id)
    if (fallback === undefined || fallback.kind !== "transcription") continue
    if (!("format" in planTranscription(request, fallback))) continue
    const routed = usable(fallback)
    if (routed !== undefined) routes.push(routed)
  }
  return routes
}
