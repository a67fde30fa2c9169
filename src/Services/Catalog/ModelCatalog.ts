import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { decisionMethodOf } from "../../Domain/DecisionModel.ts"
import type { ModelConfig, ModelKind, ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { GatewayError, unknownModel } from "../../Domain/GatewayError.ts"
import { imageFamilyOf, imageOptionsOf } from "../../Domain/ImageModel.ts"
import type { ModelEntry } from "../../Domain/ModelEntry.ts"
import { servableFormats } from "../../Domain/TranscriptionGate.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

export interface CatalogModel {
  readonly config: ModelConfig
  readonly entry: ModelEntry
}

const ownerOf = (provider: ProviderConfig | undefined): string => {
  switch (provider?.kind) {
    case "openai":
      return "openai"
    case "anthropic":
      return "anthropic"
    case "gemini":
      return "google"
    // Labelled so that nobody mistakes its canned answers for a model's.
    case "mock":
      return "mock"
    default:
      return provider?.id ?? "gateway"
  }
}

const modalities = (model: ModelConfig): ModelEntry["architecture"] => {
  const c = model.capabilities
  switch (model.kind) {
    case "chat":
    case "decision": {
      const input = ["text"]
      if (c.vision) input.push("image")
      if (c.audio_input) input.push("audio")
      if (c.video_input) input.push("video")
      if (c.file_input) input.push("file")
      return { input_modalities: input, output_modalities: [model.kind === "chat" ? "text" : "decision"] }
    }
    case "embedding":
      return { input_modalities: ["text"], output_modalities: ["embedding"] }
    case "transcription":
      return { input_modalities: ["audio"], output_modalities: ["text"] }
    case "image": {
      const image = imageOptionsOf(model)
      return {
        input_modalities: image.image_input ? ["text", "image"] : ["text"],
        output_modalities: ["image"],
        image_aspect_ratios: image.aspect_ratios,
        image_qualities: image.qualities,
        image_resolutions: image.resolutions,
        image_sizes: image.sizes,
        image_output_formats: image.output_formats,
        image_styles: image.styles,
        image_backgrounds: image.backgrounds,
        image_max_n: image.max_n,
        image_max_input_images: image.image_input ? image.max_input_images : 0,
        image_prompt_rewriting: image.prompt_rewriting,
        image_family: imageFamilyOf(model)
      }
    }
  }
}

/** Builds the public entry once at start-up; no secret or upstream URL reaches it. */
export const toEntry = (model: ModelConfig, providers: ReadonlyMap<string, ProviderConfig>, defaultCreated: number): ModelEntry => {
  const c = model.capabilities
  return {
    id: model.id,
    object: "model",
    created: model.created ?? defaultCreated,
    owned_by: model.owned_by ?? ownerOf(providers.get(model.deployments[0]!.provider)),
    kind: model.kind,
    context_length: c.context_length ?? null,
    max_output_tokens: c.max_output_tokens ?? null,
    capabilities: {
      vision: c.vision,
      audio_input: c.audio_input,
      video_input: c.video_input,
      file_input: c.file_input,
      tools: c.tools,
      structured_output: c.structured_output,
      logprobs: c.logprobs,
      reasoning: c.reasoning
    },
    architecture: modalities(model),
    pricing: { currency: "USD", ...model.pricing },
    ...(c.dimensions === undefined ? {} : { dimensions: c.dimensions }),
    ...(model.kind === "decision" ? { decision_method: decisionMethodOf(model) } : {}),
    ...(model.kind === "transcription"
      ? {
        transcription: {
          response_formats: servableFormats(model),
          // Segments come with every verbose_json; words only from an upstream that has them.
          timestamp_granularities: servableFormats(model).includes("verbose_json")
            ? ["segment", ...c.timestamp_granularities.filter((g) => g === "word")]
            : [],
          translation: c.translation
        }
      }
      : {})
  }
}

/** The catalogue of the configuration's models, built once at start-up. */
export const make = Effect.gen(function* () {
  const { config, modifiedAt } = yield* GatewayConfigFile
  const providers = new Map(config.providers.map((p) => [p.id, p]))
  const models = new Map<string, CatalogModel>(
    config.models.map((m) => [m.id, { config: m, entry: toEntry(m, providers, modifiedAt) }])
  )
  const list = [...models.values()].map((m) => m.entry)
  return ModelCatalog.of({
    list,
    find: (id) => models.get(id),
    require: (id, kind) => {
      const model = models.get(id)
      if (model === undefined) return Effect.fail(unknownModel(id))
      if (model.config.kind === kind) return Effect.succeed(model)
      return Effect.fail(
        kind === "decision"
          ? GatewayError.notFound(`The model '${id}' is not a decision model.`, "model", "model_not_found")
          : GatewayError.invalid(`The model '${id}' is a ${model.config.kind} model and cannot serve this endpoint.`, "model", "wrong_model_kind")
      )
    }
  })
})

export class ModelCatalog extends Context.Service<
  ModelCatalog,
  {
    readonly list: ReadonlyArray<ModelEntry>
    readonly find: (id: string) => CatalogModel | undefined
    /**
     * The model, or 404 naming it. A model of another kind is 404 for decisions (spec 4.6) and
     * 400 elsewhere, since the id exists but cannot serve this endpoint.
     */
    readonly require: (id: string, kind: ModelKind) => Effect.Effect<CatalogModel, GatewayError>
  }
>()("gateway/ModelCatalog") {
  static readonly layer = Layer.effect(ModelCatalog, make)
}
