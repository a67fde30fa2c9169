import { describe, expect, it } from "@effect/vitest"
import { createOpenAI } from "@ai-sdk/openai"
import { DallEAPIWrapper } from "@langchain/openai"
import { generateImage } from "ai"
import { decodedSize, geminiImageReply, openAiImagesReply, photoPng } from "../support/ImageUpstreams.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

/** The Vercel AI SDK's generateImage and LangChain's DALL-E tool, pointed at the gateway, work unchanged. */
describe("image generation from other real clients", () => {
  const gw = useGateway({
    upstreams: ["openai", "gemini"],
    config: ({ openai, gemini }) => ({
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" }
      ],
      models: [
        { id: "gpt-image-1", kind: "image", deployments: [{ provider: "openai", model: "gpt-image-1" }], image: { sizes: ["1024x1024"], max_n: 4 } },
        {
          id: "dall-e-3",
          kind: "image",
          deployments: [{ provider: "openai", model: "dall-e-3" }],
          image: { sizes: ["1024x1024"], qualities: ["standard", "hd"], styles: ["vivid", "natural"] }
        },
        { id: "nano-banana", kind: "image", deployments: [{ provider: "gemini", model: "gemini-2.5-flash-image" }], image: { sizes: ["1024x1024"], max_n: 2 } }
      ]
    })
  })
  const { openai, gemini } = gw.upstreams

  it("Vercel AI SDK: generateImage with a GPT image model (no response_format sent: base64 by default, as on OpenAI)", async () => {
    openai.always(openAiImagesReply({ gptImage: true }))
    const provider = createOpenAI({ apiKey: gw.key.secret, baseURL: `${gw.url}/v1` })
    const result = await generateImage({ model: provider.image("gpt-image-1"), prompt: "a fox", n: 2, size: "1024x1024" })
    expect((openai.requests[0]!.body as Record<string, unknown>)["response_format"]).toBeUndefined()
    expect(result.images).toHaveLength(2)
    for (const image of result.images) expect(await decodedSize(image.uint8Array)).toEqual({ width: photoPng.width, height: photoPng.height })
  })

  it("Vercel AI SDK: generateImage with any other model asks b64_json and gets it", async () => {
    gemini.always(geminiImageReply())
    const provider = createOpenAI({ apiKey: gw.key.secret, baseURL: `${gw.url}/v1` })
    const result = await generateImage({ model: provider.image("nano-banana"), prompt: "a boat", n: 2, maxImagesPerCall: 2 })
    expect(gemini.requests).toHaveLength(2)
    expect(result.images.map((i) => Buffer.from(i.uint8Array).equals(photoPng.bytes))).toEqual([true, true])
  })

  it("the openai SDK without response_format: a GPT image model answers base64, any other a link", async () => {
    openai.always(openAiImagesReply())
    const client = openAiClient(gw.url, gw.key.secret)
    const gpt = await client.images.generate({ model: "gpt-image-1", prompt: "a fox" })
    expect(gpt.data![0]!.b64_json).toBe(photoPng.bytes.toString("base64"))
    const dalle = await client.images.generate({ model: "dall-e-3", prompt: "a fox" })
    expect(dalle.data![0]!.url).toMatch(/\/v1\/images\/generated\/img_/)
  })

  it("LangChain: the DALL-E tool gets a link that serves the image", async () => {
    openai.always(openAiImagesReply({ revisedPrompt: "A fox in the snow" }))
    const tool = new DallEAPIWrapper({ apiKey: gw.key.secret, baseUrl: `${gw.url}/v1`, model: "dall-e-3" })
    const link = (await tool.invoke("a fox")) as string
    expect(openai.requests[0]!.body).toMatchObject({ model: "dall-e-3", size: "1024x1024", style: "vivid", quality: "standard", response_format: "b64_json" })
    const served = await fetch(link)
    expect(served.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await served.arrayBuffer()).equals(photoPng.bytes)).toBe(true)
  })
})
