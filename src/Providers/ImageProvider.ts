import type * as Effect from "effect/Effect"
import type { ModelConfig } from "../Domain/GatewayConfig.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import type { ImageJob } from "../Domain/ImageRequest.ts"
import type { ImageResult } from "../Domain/ImageResult.ts"
import type { ImageFamily } from "../Domain/ImageSettings.ts"

/** Which upstream model makes the images, what the catalogue says about it, and its API family. */
export interface ImageTarget {
  readonly upstreamModel: string
  readonly model: ModelConfig
  readonly family: ImageFamily
}

/**
 * The port every image provider implements. Jobs arrive decoded, checked against the catalogue
 * and with their input images resolved to bytes; adapters translate the options into the
 * family's own parameters (one pure size function per provider), call, and translate back.
 * A refusal by the provider's content policy is a 400 `content_policy_violation`, decided from
 * the provider's error code or answer structure.
 */
export interface ImageProvider {
  readonly id: string
  readonly generate: (job: ImageJob, target: ImageTarget) => Effect.Effect<ImageResult, GatewayError>
}

/**
 * What a family can express beyond its size parameters (those are the size functions'):
 * `undefined` lists take any value as is (OpenAI-compatible servers define their own).
 */
export interface ImageSupport {
  readonly qualities: ReadonlyArray<string> | undefined
  readonly styles: ReadonlyArray<string> | undefined
  readonly backgrounds: ReadonlyArray<string> | undefined
  readonly outputFormats: ReadonlyArray<string> | undefined
  readonly maxN: number
  /** 0: the family takes no input images. */
  readonly maxInputImages: number
}

/** The dimension options of a job, in either endpoint's vocabulary. */
export interface ImageDimensions {
  readonly size?: string | undefined
  readonly aspectRatio?: string | undefined
  readonly resolution?: string | undefined
}
