import type { ImageOptions, ModelConfig } from "./GatewayConfig.ts"
import { GatewayError } from "./GatewayError.ts"
import { imageOptionsOf } from "./ImageModel.ts"
import { type ImageAsk, imageParam } from "./ImageRequest.ts"

/** Each string option of a request and the catalogue list that declares its values. */
const declared: ReadonlyArray<readonly [keyof ImageAsk & keyof typeof imageParam, keyof ImageOptions]> = [
  ["size", "sizes"],
  ["aspectRatio", "aspect_ratios"],
  ["resolution", "resolutions"],
  ["quality", "qualities"],
  ["style", "styles"],
  ["background", "backgrounds"],
  ["outputFormat", "output_formats"]
]

const notOffered = (model: ModelConfig, param: string, why = "") =>
  GatewayError.invalid(`The model '${model.id}' does not offer '${param}'${why}.`, param, "unsupported_parameter")

/**
 * Spec 4.5 rule 2: a value outside what the model declares in the catalogue, or an option it
 * does not offer, is a 400 naming the field, before anything is sent upstream. Nothing is
 * dropped or substituted. The router applies the same check to fallback models, so a fallback
 * only ever serves a request its own catalogue entry accepts.
 */
export const checkImageAsk = (ask: ImageAsk, model: ModelConfig): GatewayError | undefined => {
  const options = imageOptionsOf(model)
  if (ask.n > options.max_n) {
    return GatewayError.invalid(
      `'n' is ${ask.n}; the model '${model.id}' makes at most ${options.max_n} image${options.max_n === 1 ? "" : "s"} per request.`,
      "n",
      "unsupported_value"
    )
  }
  if (ask.referenceCount > 0) {
    if (!options.image_input) return notOffered(model, imageParam.referenceCount, ": it does not take input images")
    if (ask.referenceCount > options.max_input_images) {
      return GatewayError.invalid(
        `'input_references' has ${ask.referenceCount} images; the model '${model.id}' takes at most ${options.max_input_images}.`,
        "input_references",
        "unsupported_value"
      )
    }
  }
  for (const [field, list] of declared) {
    const value = ask[field]
    if (value === undefined) continue
    const param = imageParam[field]
    const allowed = options[list] as ReadonlyArray<string>
    if (allowed.length === 0) return notOffered(model, param)
    if (!allowed.includes(value as string)) {
      return GatewayError.invalid(
        `Invalid value for '${param}': '${String(value)}'. The model '${model.id}' accepts ${allowed.map((v) => `'${v}'`).join(", ")}.`,
        param,
        "unsupported_value"
      )
    }
  }
  if (ask.outputCompression !== undefined) {
    if (options.output_formats.length === 0) return notOffered(model, "output_compression")
    if (ask.outputFormat !== "jpeg" && ask.outputFormat !== "webp") {
      return GatewayError.invalid(
        "'output_compression' applies only to 'jpeg' or 'webp' output; set 'output_format' to one of them.",
        "output_compression",
        "unsupported_parameter"
      )
    }
  }
  return undefined
}
