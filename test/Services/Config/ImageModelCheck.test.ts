import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { decodeConfig } from "../../../src/Services/Config/GatewayConfigLoader.ts"

const decode = (raw: unknown) => Effect.runSyncExit(decodeConfig("gw.yaml", raw, {}))
const errorOf = (raw: unknown) => {
  const exit = decode(raw)
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  return reason.error.message
}
const providers = [
  { id: "openai", kind: "openai", base_url: "https://api.openai.com/v1" },
  { id: "gemini", kind: "gemini", base_url: "https://generativelanguage.googleapis.com/v1beta" },
  { id: "claude", kind: "anthropic", base_url: "https://api.anthropic.com/v1" },
  { id: "together", kind: "openai-compatible", profile: "together", base_url: "https://api.together.xyz/v1" }
]
const image = (model: string, provider: string, options?: Record<string, unknown>) => ({
  providers,
  models: [{ id: "img", kind: "image", deployments: [{ provider, model }], ...(options === undefined ? {} : { image: options }) }]
})

describe("image models in gateway.yaml", () => {
  it("rule 1 of spec 4.5: qualities or resolutions, never both, stops start-up", () => {
    expect(errorOf(image("gemini-3-pro-image-preview", "gemini", { qualities: ["low"], resolutions: ["1K"] }))).toBe(
      "gw.yaml: models[0].image: a model offers qualities or resolutions, never both"
    )
  })

  it("a declared value the family cannot send upstream stops start-up, naming the list", () => {
    expect(errorOf(image("gpt-image-1", "openai", { aspect_ratios: ["1:1", "21:9"] }))).toBe(
      'gw.yaml: models[0].image.aspect_ratios: gpt-image cannot make aspect ratio "21:9"'
    )
    expect(errorOf(image("dall-e-3", "openai", { styles: ["cinematic"] }))).toMatch(/^gw\.yaml: models\[0\]\.image\.styles: "cinematic" is not one of dall-e-3's values/)
    expect(errorOf(image("imagen-4.0-generate-001", "gemini", { max_n: 8 }))).toBe("gw.yaml: models[0].image.max_n: imagen makes at most 4 images per request")
    expect(errorOf(image("flux", "together", { aspect_ratios: ["auto"], resolutions: ["1K"] }))).toMatch(/image\.aspect_ratios: openai-compatible cannot make aspect ratio "auto" at resolution "1K"/)
  })

  it("every deployment must be on a provider with an image API of the model's family", () => {
    expect(errorOf(image("claude", "claude"))).toBe('gw.yaml: models[0].deployments[0].provider: provider "claude" is of kind anthropic, which has no image API')
    expect(errorOf(image("gpt-image-1", "gemini", { family: "gpt-image" }))).toBe(
      'gw.yaml: models[0].deployments[0].provider: provider "gemini" (gemini) does not serve the gpt-image image family'
    )
    expect(
      errorOf({ providers, models: [{ id: "img", kind: "image", deployments: [{ provider: "openai", model: "gpt-image-1" }, { provider: "gemini", model: "x" }] }] })
    ).toMatch(/deployments\[1\]\.provider: provider "gemini" \(gemini\) does not serve the gpt-image image family/)
  })

  it("fills in the family each image model speaks when it is left out", () => {
    const cases: Array<[string, string, string]> = [
      ["dall-e-2", "openai", "dall-e-2"],
      ["dall-e-3", "openai", "dall-e-3"],
      ["gpt-image-1", "openai", "gpt-image"],
      ["gemini-2.5-flash-image", "gemini", "gemini"],
      ["imagen-4.0-ultra-generate-001", "gemini", "imagen"],
      ["flux", "together", "openai-compatible"]
    ]
    for (const [model, provider, family] of cases) {
      const exit = decode(image(model, provider))
      if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
      expect(exit.value.models[0]!.image?.family, model).toBe(family)
    }
  })

  it("the images section: link lifetime, a signing secret of at least 16 characters, the public base URL", () => {
    const exit = decode({ server: { public_base_url: "https://gw.example.com/api" }, images: { url_ttl_seconds: 600, url_secret: "0123456789abcdef" } })
    if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
    expect(exit.value.images.url_ttl_seconds).toBe(600)
    expect(String(exit.value.images.url_secret)).toBe("<redacted>")
    expect(exit.value.server.public_base_url).toBe("https://gw.example.com/api")
    const defaults = decode({})
    if (Exit.isFailure(defaults)) throw new Error(String(defaults.cause))
    expect(defaults.value.images).toEqual({ url_ttl_seconds: 3600, sweep_interval_seconds: 60, max_input_image_mb: 20 })
    expect(errorOf({ images: { url_secret: "short" } })).toMatch(/^gw\.yaml: images\.url_secret: /)
    expect(errorOf({ server: { public_base_url: "gw.example.com" } })).toMatch(/^gw\.yaml: server\.public_base_url: /)
  })
})
