import type { DecisionMethod } from "./DecisionSettings.ts"
import type { ModelKind } from "./GatewayConfig.ts"

/** One entry of `GET /v1/models`: the common convention's fields plus what clients need to choose a model. */
export interface ModelEntry {
  readonly id: string
  readonly object: "model"
  readonly created: number
  readonly owned_by: string
  readonly kind: ModelKind
  readonly context_length: number | null
  readonly max_output_tokens: number | null
  readonly capabilities: {
    readonly vision: boolean
    readonly audio_input: boolean
    readonly video_input: boolean
    readonly file_input: boolean
    readonly tools: boolean
    readonly structured_output: boolean
    readonly logprobs: boolean
    readonly reasoning: boolean
  }
  readonly architecture: {
    readonly input_modalities: ReadonlyArray<string>
    readonly output_modalities: ReadonlyArray<string>
    readonly image_aspect_ratios?: ReadonlyArray<string>
    readonly image_qualities?: ReadonlyArray<string>
    readonly image_resolutions?: ReadonlyArray<string>
    readonly image_sizes?: ReadonlyArray<string>
    readonly image_output_formats?: ReadonlyArray<string>
    readonly image_styles?: ReadonlyArray<string>
    readonly image_backgrounds?: ReadonlyArray<string>
    readonly image_max_n?: number
    readonly image_max_input_images?: number
    readonly image_prompt_rewriting?: boolean
    readonly image_family?: string
  }
  readonly pricing: {
    readonly currency: "USD"
    readonly input_per_mtok?: number
    readonly output_per_mtok?: number
    readonly cached_input_per_mtok?: number
    readonly cache_write_per_mtok?: number
    readonly per_image?: number
    readonly per_audio_second?: number
    readonly per_request?: number
  }
  readonly dimensions?: number
  /** Decision models: whether answers come from token probabilities or sampled labels. */
  readonly decision_method?: DecisionMethod
  /** Transcription models: what a client may ask of them (formats the gateway can serve, built ones included). */
  readonly transcription?: {
    readonly response_formats: ReadonlyArray<string>
    readonly timestamp_granularities: ReadonlyArray<string>
    readonly translation: boolean
  }
}
