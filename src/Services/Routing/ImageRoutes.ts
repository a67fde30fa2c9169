import type { ModelConfig } from "../../Domain/GatewayConfig.ts"
import { fallbackRoutes } from "./FallbackRoutes.ts"
import { checkImageAsk } from "../../Domain/ImageGate.ts"
import type { ImageAsk } from "../../Domain/ImageRequest.ts"
import type { ImageProvider } from "../../Providers/ImageProvider.ts"

type ProviderLookup = (providerId: string) => ImageProvider | undefined

/**
 * The models an image request may be routed to, in order: its own, then each image fallback
 * whose catalogue entry accepts every option the request set (the same gate as the requested
 * model), so a fallback never makes something the client did not ask for. Each keeps only the
 * deployments whose provider has an image adapter; a model left with none is skipped.
 */
export const imageRoutes = (
  model: ModelConfig,
  ask: ImageAsk,
  find: (id: string) => ModelConfig | undefined,
  provider: ProviderLookup
): ReadonlyArray<ModelConfig> =>
  fallbackRoutes(model, "image", find, (d) => provider(d.provider) !== undefined, (m) => checkImageAsk(ask, m) === undefined)
