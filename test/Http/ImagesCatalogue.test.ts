import { beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import type { FakeUpstream, RecordedRequest } from "../support/FakeUpstream.ts"
import { geminiImageReply, imagenReply, openAiImagesReply } from "../support/ImageUpstreams.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * Spec 4.5 rule 2, exhaustively: every value a model declares in the catalogue (as `GET
 * /v1/models` shows it) is accepted and reaches the upstream in that provider's own form; every
 * value of the spec's vocabulary it does not declare, and every option it does not offer, is a
 * 400 naming the field with nothing sent upstream.
 */

type Endpoint = "/v1/images/generations" | "/v1/images"
type Body = Record<string, any>

/** Each option: its request field, the endpoint that takes it, its catalogue list, and the spec's values. */
const fields = [
  { field: "size", endpoint: "/v1/images/generations", list: "image_sizes", universe: ["256x256", "512x512", "1024x1024", "1792x1024", "1024x1792", "1536x1024", "1024x1536", "auto", "1344x768", "2048x2048", "640x480"] },
  { field: "quality", endpoint: "/v1/images/generations", list: "image_qualities", universe: ["standard", "hd", "auto", "low", "medium", "high"] },
  { field: "style", endpoint: "/v1/images/generations", list: "image_styles", universe: ["vivid", "natural"] },
  { field: "background", endpoint: "/v1/images/generations", list: "image_backgrounds", universe: ["transparent", "opaque", "auto"] },
  { field: "output_format", endpoint: "/v1/images/generations", list: "image_output_formats", universe: ["png", "jpeg", "webp"] },
  { field: "aspect_ratio", endpoint: "/v1/images", list: "image_aspect_ratios", universe: ["auto", "1:1", "3:2", "2:3", "4:3", "3:4", "16:9", "9:16", "21:9"] },
  { field: "quality", endpoint: "/v1/images", list: "image_qualities", universe: ["auto", "low", "medium", "high", "standard", "hd"] },
  { field: "resolution", endpoint: "/v1/images", list: "image_resolutions", universe: ["auto", "512", "1K", "2K", "4K"] },
  { field: "output_format", endpoint: "/v1/images", list: "image_output_formats", universe: ["png", "jpeg", "webp"] }
] as const

const imageConfig = (request: RecordedRequest) => (request.body as Body)["generationConfig"]?.["imageConfig"]
const parameters = (request: RecordedRequest) => (request.body as Body)["parameters"]

/**
 * What the upstream must receive for each declared value: `model/endpoint/field=value` -> the
 * relevant part of the upstream request. Written out by hand from the providers' documentation,
 * so a mapping mistake shows here rather than being repeated.
 */
const expected: Record<string, (request: RecordedRequest) => unknown> = {}
const expect_ = (key: string, pick: (request: RecordedRequest) => unknown) => (expected[key] = pick)
const sizeIs = (request: RecordedRequest) => (request.body as Body)["size"]
const bodyField = (name: string) => (request: RecordedRequest) => (request.body as Body)[name]

describe("every catalogue value of every image model", () => {
  const gw = useGateway({
    upstreams: ["openai", "gemini", "together", "xai"],
    config: ({ openai, gemini, together, xai }) => ({
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" },
        { id: "together", kind: "openai-compatible", profile: "together", base_url: `${together.url}/v1`, api_key: "t-key" },
        { id: "xai", kind: "openai-compatible", profile: "xai", base_url: `${xai.url}/v1`, api_key: "x-key" }
      ],
      models: [
        {
          id: "gpt-image-1",
          kind: "image",
          deployments: [{ provider: "openai", model: "gpt-image-1" }],
          image: {
            sizes: ["1024x1024", "1536x1024", "1024x1536", "auto"],
            qualities: ["auto", "low", "medium", "high"],
            backgrounds: ["transparent", "opaque", "auto"],
            output_formats: ["png", "jpeg", "webp"],
            aspect_ratios: ["auto", "1:1", "3:2", "2:3"],
            max_n: 4
          }
        },
        {
          id: "dall-e-3",
          kind: "image",
          deployments: [{ provider: "openai", model: "dall-e-3" }],
          image: { sizes: ["1024x1024", "1792x1024", "1024x1792"], qualities: ["standard", "hd"], styles: ["vivid", "natural"], aspect_ratios: ["1:1", "16:9", "9:16"], prompt_rewriting: true }
        },
        {
          id: "dall-e-2",
          kind: "image",
          deployments: [{ provider: "openai", model: "dall-e-2" }],
          image: { sizes: ["256x256", "512x512", "1024x1024"], aspect_ratios: ["1:1"], resolutions: ["512", "1K"], max_n: 10 }
        },
        {
          id: "nano-banana-pro",
          kind: "image",
          deployments: [{ provider: "gemini", model: "gemini-3-pro-image-preview" }],
          image: {
            sizes: ["1024x1024", "1344x768", "2048x2048"],
            aspect_ratios: ["auto", "1:1", "2:3", "3:2", "3:4", "4:3", "9:16", "16:9", "21:9"],
            resolutions: ["auto", "1K", "2K", "4K"],
            max_n: 2
          }
        },
        {
          id: "imagen-4",
          kind: "image",
          deployments: [{ provider: "gemini", model: "imagen-4.0-generate-001" }],
          image: { sizes: ["1024x1024", "2048x2048"], aspect_ratios: ["1:1", "3:4", "4:3", "9:16", "16:9"], resolutions: ["1K", "2K"], output_formats: ["png", "jpeg"], max_n: 4 }
        },
        {
          id: "flux",
          kind: "image",
          deployments: [{ provider: "together", model: "black-forest-labs/FLUX.1-schnell" }],
          image: { sizes: ["512x512", "1024x768"], aspect_ratios: ["1:1", "16:9"], resolutions: ["1K", "2K"], max_n: 4 }
        },
        {
          id: "grok-imagine",
          kind: "image",
          deployments: [{ provider: "xai", model: "grok-imagine-image" }],
          image: { aspect_ratios: ["auto", "1:1", "16:9"], resolutions: ["1K", "2K"], max_n: 10 }
        }
      ]
    })
  })
  const { openai, gemini, together, xai } = gw.upstreams
  const upstreamOf: Record<string, FakeUpstream> = {}
  let catalogue: Array<Body> = []

  beforeAll(async () => {
    Object.assign(upstreamOf, { "gpt-image-1": openai, "dall-e-3": openai, "dall-e-2": openai, "nano-banana-pro": gemini, "imagen-4": gemini, flux: together, "grok-imagine": xai })
    catalogue = (((await (await fetch(`${gw.url}/v1/models`, { headers: gw.auth() })).json()) as Body)["data"] as Array<Body>).filter((m) => m["kind"] === "image")
  })
  beforeEach(() => {
    for (const upstream of [openai, together, xai]) upstream.always(openAiImagesReply())
    gemini.always((request) => (request.url.includes(":predict") ? imagenReply()(request) : geminiImageReply()))
  })

  // OpenAI's GPT image models: OpenAI's own sizes, quality, background and format as they are; no response_format.
  for (const v of ["1024x1024", "1536x1024", "1024x1536", "auto"]) expect_(`gpt-image-1 /v1/images/generations size=${v}`, sizeIs)
  for (const v of ["auto", "low", "medium", "high"]) {
    expect_(`gpt-image-1 /v1/images/generations quality=${v}`, bodyField("quality"))
    expect_(`gpt-image-1 /v1/images quality=${v}`, bodyField("quality"))
  }
  for (const v of ["transparent", "opaque", "auto"]) expect_(`gpt-image-1 /v1/images/generations background=${v}`, bodyField("background"))
  for (const v of ["png", "jpeg", "webp"]) {
    expect_(`gpt-image-1 /v1/images/generations output_format=${v}`, bodyField("output_format"))
    expect_(`gpt-image-1 /v1/images output_format=${v}`, bodyField("output_format"))
  }
  const gptAspect: Record<string, string> = { "auto": "auto", "1:1": "1024x1024", "3:2": "1536x1024", "2:3": "1024x1536" }
  for (const [v, size] of Object.entries(gptAspect)) expect_(`gpt-image-1 /v1/images aspect_ratio=${v}`, (r) => sizeIs(r) === size && v)
  // DALL-E 3: its three sizes, standard/hd, vivid/natural; aspect ratios become its square, wide and tall sizes.
  for (const v of ["1024x1024", "1792x1024", "1024x1792"]) expect_(`dall-e-3 /v1/images/generations size=${v}`, sizeIs)
  for (const v of ["standard", "hd"]) {
    expect_(`dall-e-3 /v1/images/generations quality=${v}`, bodyField("quality"))
    expect_(`dall-e-3 /v1/images quality=${v}`, bodyField("quality"))
  }
  for (const v of ["vivid", "natural"]) expect_(`dall-e-3 /v1/images/generations style=${v}`, bodyField("style"))
  const dalle3Aspect: Record<string, string> = { "1:1": "1024x1024", "16:9": "1792x1024", "9:16": "1024x1792" }
  for (const [v, size] of Object.entries(dalle3Aspect)) expect_(`dall-e-3 /v1/images aspect_ratio=${v}`, (r) => sizeIs(r) === size && v)
  // DALL-E 2: squares only; resolution tokens are its two larger squares.
  for (const v of ["256x256", "512x512", "1024x1024"]) expect_(`dall-e-2 /v1/images/generations size=${v}`, sizeIs)
  expect_("dall-e-2 /v1/images aspect_ratio=1:1", (r) => sizeIs(r) === "1024x1024" && "1:1")
  expect_("dall-e-2 /v1/images resolution=512", (r) => sizeIs(r) === "512x512" && "512")
  expect_("dall-e-2 /v1/images resolution=1K", (r) => sizeIs(r) === "1024x1024" && "1K")
  // Gemini: imageConfig.aspectRatio and imageSize; auto leaves them out (the model follows its inputs).
  for (const v of ["1:1", "2:3", "3:2", "3:4", "4:3", "9:16", "16:9", "21:9"]) expect_(`nano-banana-pro /v1/images aspect_ratio=${v}`, (r) => imageConfig(r)?.aspectRatio)
  expect_("nano-banana-pro /v1/images aspect_ratio=auto", (r) => imageConfig(r) === undefined && "auto")
  for (const v of ["1K", "2K", "4K"]) expect_(`nano-banana-pro /v1/images resolution=${v}`, (r) => imageConfig(r)?.imageSize)
  expect_("nano-banana-pro /v1/images resolution=auto", (r) => imageConfig(r) === undefined && "auto")
  expect_("nano-banana-pro /v1/images/generations size=1024x1024", (r) => JSON.stringify(imageConfig(r)) === '{"aspectRatio":"1:1"}' && "1024x1024")
  expect_("nano-banana-pro /v1/images/generations size=1344x768", (r) => JSON.stringify(imageConfig(r)) === '{"aspectRatio":"16:9"}' && "1344x768")
  expect_("nano-banana-pro /v1/images/generations size=2048x2048", (r) => JSON.stringify(imageConfig(r)) === '{"aspectRatio":"1:1","imageSize":"2K"}' && "2048x2048")
  // Imagen: parameters.aspectRatio, sampleImageSize and outputOptions.mimeType.
  for (const v of ["1:1", "3:4", "4:3", "9:16", "16:9"]) expect_(`imagen-4 /v1/images aspect_ratio=${v}`, (r) => parameters(r)?.aspectRatio)
  for (const v of ["1K", "2K"]) expect_(`imagen-4 /v1/images resolution=${v}`, (r) => parameters(r)?.sampleImageSize)
  for (const v of ["png", "jpeg"]) {
    const format = (r: RecordedRequest) => (parameters(r)?.outputOptions?.mimeType === `image/${v}` ? v : parameters(r)?.outputOptions)
    expect_(`imagen-4 /v1/images/generations output_format=${v}`, format)
    expect_(`imagen-4 /v1/images output_format=${v}`, format)
  }
  expect_("imagen-4 /v1/images/generations size=1024x1024", (r) => JSON.stringify(parameters(r)) === '{"sampleCount":1,"aspectRatio":"1:1"}' && "1024x1024")
  expect_("imagen-4 /v1/images/generations size=2048x2048", (r) => parameters(r)?.sampleImageSize === "2K" && parameters(r)?.aspectRatio === "1:1" && "2048x2048")
  // Together takes integer width and height; a resolution alone is a square at its edge.
  const pixels = (width: number, height: number, v: string) => (r: RecordedRequest) => bodyField("width")(r) === width && bodyField("height")(r) === height && v
  expect_("flux /v1/images/generations size=512x512", pixels(512, 512, "512x512"))
  expect_("flux /v1/images/generations size=1024x768", pixels(1024, 768, "1024x768"))
  expect_("flux /v1/images aspect_ratio=1:1", pixels(1024, 1024, "1:1"))
  expect_("flux /v1/images aspect_ratio=16:9", pixels(1024, 576, "16:9"))
  expect_("flux /v1/images resolution=1K", pixels(1024, 1024, "1K"))
  expect_("flux /v1/images resolution=2K", pixels(2048, 2048, "2K"))
  // xAI takes aspect_ratio as it is and resolution as a lower-case token.
  for (const v of ["auto", "1:1", "16:9"]) expect_(`grok-imagine /v1/images aspect_ratio=${v}`, bodyField("aspect_ratio"))
  expect_("grok-imagine /v1/images resolution=1K", (r) => bodyField("resolution")(r) === "1k" && "1K")
  expect_("grok-imagine /v1/images resolution=2K", (r) => bodyField("resolution")(r) === "2k" && "2K")

  const send = (endpoint: Endpoint, body: Body) => gw.postJson(endpoint, { prompt: "a lighthouse at dusk", ...body })

  it("the catalogue shows every image model's options", () => {
    expect(catalogue.map((m) => m["id"]).sort()).toEqual(["dall-e-2", "dall-e-3", "flux", "gpt-image-1", "grok-imagine", "imagen-4", "nano-banana-pro"])
    const gpt = catalogue.find((m) => m["id"] === "gpt-image-1")!
    expect(gpt["architecture"]).toMatchObject({ image_family: "gpt-image", image_max_n: 4, image_backgrounds: ["transparent", "opaque", "auto"], output_modalities: ["image"] })
    expect(catalogue.find((m) => m["id"] === "dall-e-3")!["architecture"]).toMatchObject({ image_family: "dall-e-3", image_prompt_rewriting: true, image_max_n: 1 })
    expect(catalogue.find((m) => m["id"] === "imagen-4")!["architecture"]["image_family"]).toBe("imagen")
  })

  it("every declared value is accepted and reaches the upstream in the provider's form", async () => {
    let checked = 0
    for (const model of catalogue) {
      const id = model["id"] as string
      const upstream = upstreamOf[id]!
      for (const { field, endpoint, list } of fields) {
        for (const value of model["architecture"][list] as Array<string>) {
          const key = `${id} ${endpoint} ${field}=${value}`
          const pick = expected[key]
          expect(pick, `no expectation written for ${key}`).toBeDefined()
          upstream.requests.length = 0
          const res = await send(endpoint, { model: id, [field]: value })
          expect(res.status, `${key}: ${await res.clone().text()}`).toBe(200)
          expect(upstream.requests.length, key).toBeGreaterThan(0)
          expect(pick!(upstream.requests[0]!), key).toBe(value)
          checked++
        }
      }
    }
    expect(checked).toBe(Object.keys(expected).length)
  })

  it("n up to each model's max_n reaches the upstream: n, sampleCount, or one Gemini call per image", async () => {
    for (const model of catalogue) {
      const id = model["id"] as string
      const upstream = upstreamOf[id]!
      upstream.requests.length = 0
      const n = model["architecture"]["image_max_n"] as number
      const res = await send("/v1/images", { model: id, n })
      expect(res.status, id).toBe(200)
      expect(((await res.json()) as Body)["data"], id).toHaveLength(n)
      if (id === "nano-banana-pro") expect(upstream.requests).toHaveLength(n)
      else if (id === "imagen-4") expect(parameters(upstream.requests[0]!).sampleCount).toBe(n)
      else expect((upstream.requests[0]!.body as Body)["n"], id).toBe(n)
      // Base64 is asked for in each server's own words; GPT image models always answer it and take no response_format.
      const format = { flux: "base64", "grok-imagine": "b64_json", "dall-e-2": "b64_json", "dall-e-3": "b64_json" }[id]
      if (id !== "nano-banana-pro" && id !== "imagen-4") expect((upstream.requests[0]!.body as Body)["response_format"], id).toBe(format)
    }
  })

  it("every undeclared value, and every option a model does not offer, is a 400 naming the field with nothing sent upstream", async () => {
    let refused = 0
    for (const model of catalogue) {
      const id = model["id"] as string
      const upstream = upstreamOf[id]!
      upstream.requests.length = 0
      for (const { field, endpoint, list, universe } of fields) {
        const declared = model["architecture"][list] as Array<string>
        for (const value of universe.filter((v) => !declared.includes(v))) {
          const res = await send(endpoint, { model: id, [field]: value })
          const body = (await res.json()) as Body
          expect(res.status, `${id} ${field}=${value}`).toBe(400)
          expect(body["error"]).toMatchObject({ type: "invalid_request_error", param: field })
          expect(body["error"]["message"]).toContain(`'${field}'`)
          refused++
        }
      }
      const tooMany = await send("/v1/images", { model: id, n: (model["architecture"]["image_max_n"] as number) + 1 })
      expect(tooMany.status).toBe(400)
      expect(((await tooMany.json()) as Body)["error"]).toMatchObject({ param: "n" })
      const inputs = await send("/v1/images", { model: id, input_references: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] })
      expect(inputs.status).toBe(400)
      expect(((await inputs.json()) as Body)["error"]).toMatchObject({ param: "input_references", code: "unsupported_parameter" })
      expect(upstream.requests, id).toHaveLength(0)
    }
    expect(refused).toBeGreaterThan(150)
  })

  it("output_compression needs a jpeg or webp output format the model offers", async () => {
    const plain = await send("/v1/images", { model: "gpt-image-1", output_compression: 50 })
    expect(((await plain.json()) as Body)["error"]).toMatchObject({ param: "output_compression" })
    const png = await send("/v1/images", { model: "gpt-image-1", output_format: "png", output_compression: 50 })
    expect(((await png.json()) as Body)["error"]).toMatchObject({ param: "output_compression" })
    const none = await send("/v1/images", { model: "dall-e-3", output_compression: 50 })
    expect(((await none.json()) as Body)["error"]).toMatchObject({ param: "output_compression", code: "unsupported_parameter" })
    expect(openai.requests).toHaveLength(0)
    const jpeg = await send("/v1/images", { model: "gpt-image-1", output_format: "jpeg", output_compression: 50 })
    expect(jpeg.status).toBe(200)
    expect(openai.requests[0]!.body).toMatchObject({ output_format: "jpeg", output_compression: 50 })
    const imagen = await send("/v1/images", { model: "imagen-4", output_format: "jpeg", output_compression: 80 })
    expect(imagen.status).toBe(200)
    expect(parameters(gemini.requests[0]!).outputOptions).toEqual({ mimeType: "image/jpeg", compressionQuality: 80 })
  })

  it("each endpoint refuses the other's options and unknown fields by name", async () => {
    const cases: Array<[Endpoint, Body, string]> = [
      ["/v1/images", { aspect_ratio: "1:1", size: "1024x1024" }, "size"],
      ["/v1/images", { style: "vivid" }, "style"],
      ["/v1/images", { response_format: "url" }, "response_format"],
      ["/v1/images/generations", { aspect_ratio: "1:1" }, "aspect_ratio"],
      ["/v1/images/generations", { resolution: "1K" }, "resolution"],
      ["/v1/images/generations", { input_references: [] }, "input_references"],
      ["/v1/images/generations", { moderation: "low" }, "moderation"],
      ["/v1/images/generations", { stream: true }, "stream"]
    ]
    for (const [endpoint, body, param] of cases) {
      const res = await send(endpoint, { model: "gpt-image-1", ...body })
      expect(res.status, param).toBe(400)
      expect(((await res.json()) as Body)["error"]["param"]).toBe(param)
    }
    expect(openai.requests).toHaveLength(0)
  })
})
