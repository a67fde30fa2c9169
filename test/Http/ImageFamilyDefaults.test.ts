import { describe, expect, it } from "@effect/vitest"
import { imagenReply, openAiImagesReply, photoPng } from "../support/ImageUpstreams.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

type Body = Record<string, any>

/**
 * A catalogue entry that leaves an option list out gets its family's own (sizes, qualities,
 * styles, backgrounds, output formats, max_n), as GET /v1/models shows; declared lists stay as
 * written. So the SDK's images.generate with `size` and `n` works on a model configured, as the
 * docs show for `/v1/images`, with aspect ratios and qualities only.
 */
describe("image models default undeclared options to their family's", () => {
  const gw = useGateway({
    upstreams: ["openai", "gemini"],
    config: ({ openai, gemini }) => ({
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" }
      ],
      models: [
        { id: "gpt-image-1", kind: "image", deployments: [{ provider: "openai", model: "gpt-image-1" }], image: { aspect_ratios: ["1:1", "3:2"], qualities: ["low", "high"] } },
        { id: "dall-e-3", kind: "image", deployments: [{ provider: "openai", model: "dall-e-3" }] },
        { id: "imagen-4", kind: "image", deployments: [{ provider: "gemini", model: "imagen-4.0-generate-001" }], image: { aspect_ratios: ["1:1", "16:9"], resolutions: ["1K"] } }
      ]
    })
  })
  const { openai, gemini } = gw.upstreams
  const catalogue = async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: gw.auth() })
    return new Map(((await res.json()) as { data: Array<Body> }).data.map((m) => [m["id"] as string, m["architecture"] as Body]))
  }

  it("the openai SDK: images.generate with size 1024x1024 and n: 2 on a model configured with aspect ratios and qualities only", async () => {
    openai.always(openAiImagesReply({ gptImage: true }))
    const client = openAiClient(gw.url, gw.key.secret)
    const result = await client.images.generate({ model: "gpt-image-1", prompt: "a fox", size: "1024x1024", n: 2, quality: "high" })
    expect(result.data).toHaveLength(2)
    expect(result.data![0]!.b64_json).toBe(photoPng.bytes.toString("base64"))
    expect(openai.requests[0]!.body).toMatchObject({ model: "gpt-image-1", size: "1024x1024", n: 2, quality: "high" })
  })

  it("GET /v1/models shows the family's lists where the entry declared none, and the declared ones as written", async () => {
    const models = await catalogue()
    expect(models.get("gpt-image-1")).toMatchObject({
      image_family: "gpt-image",
      image_sizes: ["1024x1024", "1536x1024", "1024x1536", "auto"],
      image_qualities: ["low", "high"],
      image_aspect_ratios: ["1:1", "3:2"],
      image_backgrounds: ["transparent", "opaque", "auto"],
      image_output_formats: ["png", "jpeg", "webp"],
      image_max_n: 10
    })
    expect(models.get("dall-e-3")).toMatchObject({
      image_family: "dall-e-3",
      image_sizes: ["1024x1024", "1792x1024", "1024x1792"],
      image_qualities: ["standard", "hd", "auto"],
      image_styles: ["vivid", "natural"],
      image_max_n: 1
    })
    // Imagen declares resolutions, so no qualities are added beside them (one or the other).
    expect(models.get("imagen-4")).toMatchObject({ image_family: "imagen", image_resolutions: ["1K"], image_qualities: [], image_max_n: 4, image_output_formats: ["png", "jpeg"] })
    expect(models.get("imagen-4")!["image_sizes"]).toContain("1024x1024")
    expect(models.get("imagen-4")!["image_sizes"]).toContain("1792x1024")
  })

  it("a family's limits still hold: dall-e-3 makes one image a request, imagen four", async () => {
    openai.always(openAiImagesReply())
    gemini.always(imagenReply())
    const client = openAiClient(gw.url, gw.key.secret)
    const tooMany = await client.images.generate({ model: "dall-e-3", prompt: "a fox", n: 2 }).catch((e: unknown) => e as { status: number; error: Body })
    expect((tooMany as { status: number }).status).toBe(400)
    expect(openai.requests).toHaveLength(0)
    const imagen = await client.images.generate({ model: "imagen-4", prompt: "a fox", size: "1024x1024", n: 4, response_format: "b64_json" })
    expect(imagen.data).toHaveLength(4)
    expect((gemini.requests[0]!.body as Body)["parameters"]).toMatchObject({ sampleCount: 4, aspectRatio: "1:1" })
  })
})
