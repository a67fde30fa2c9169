import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type OpenAI from "openai"
import { FileStore } from "../../src/Services/Files/FileStore.ts"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import {
  decodedSize,
  geminiImageReply,
  geminiImageSafety,
  imagenReply,
  openAiImagesReply,
  openAiPolicyRefusal,
  photoPng,
  startImageHost
} from "../support/ImageUpstreams.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { validateAgainst } from "../support/OpenApiValidator.ts"
import { useGateway } from "../support/UseGateway.ts"

const ttlSeconds = 3

describe("image generation over HTTP", () => {
  const gw = useGateway({
    upstreams: ["openai", "gemini", "compat"],
    config: ({ openai, gemini, compat }) => ({
      routing: { base_backoff_ms: 1, max_backoff_ms: 5, failure_threshold: 100 },
      fetch: { allow_private_networks: true },
      images: { url_ttl_seconds: ttlSeconds, url_secret: "test-secret-for-image-links", sweep_interval_seconds: 1 },
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" },
        { id: "compat", kind: "openai-compatible", base_url: `${compat.url}/v1` }
      ],
      models: [
        {
          id: "dall-e-3",
          kind: "image",
          deployments: [{ provider: "openai", model: "dall-e-3" }],
          image: { sizes: ["1024x1024", "1792x1024"], qualities: ["standard", "hd"], styles: ["vivid", "natural"], prompt_rewriting: true },
          pricing: { per_image: 0.04 }
        },
        {
          id: "gpt-image-1",
          kind: "image",
          deployments: [{ provider: "openai", model: "gpt-image-1" }],
          image: { sizes: ["1024x1024", "auto"], qualities: ["low", "high"], backgrounds: ["transparent"], output_formats: ["png", "jpeg"], max_n: 4 },
          pricing: { input_per_mtok: 5, output_per_mtok: 40 }
        },
        { id: "flux", kind: "image", deployments: [{ provider: "compat", model: "flux-schnell" }], image: { max_n: 2 }, pricing: { per_image: 0.003 } },
        {
          id: "nano-banana",
          kind: "image",
          deployments: [{ provider: "gemini", model: "gemini-2.5-flash-image" }],
          image: { aspect_ratios: ["1:1", "16:9"], max_n: 2 },
          pricing: { input_per_mtok: 0.3, output_per_mtok: 30 },
          fallbacks: ["imagen"]
        },
        { id: "imagen", kind: "image", deployments: [{ provider: "gemini", model: "imagen-4.0-generate-001" }], image: { aspect_ratios: ["1:1", "16:9"], max_n: 4 }, pricing: { per_image: 0.04 } }
      ]
    })
  })
  const { openai, gemini, compat } = gw.upstreams
  let client: OpenAI
  let host: Awaited<ReturnType<typeof startImageHost>>

  beforeAll(async () => {
    client = openAiClient(gw.url, gw.key.secret)
    host = await startImageHost()
  })
  afterAll(async () => {
    await host.close()
  })

  const usageOf = (keyId: string) =>
    gw.runtime.runPromise(
      Effect.gen(function* () {
        yield* (yield* UsageLedger).flush
        const sql = yield* SqlClient.SqlClient
        return yield* sql<Record<string, unknown>>`SELECT d.name AS endpoint, e.status, e.units, e.prompt_tokens, e.completion_tokens, e.cost_nano_usd
          FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq JOIN usage_endpoints d ON d.id = e.endpoint WHERE k.id = ${keyId}`
      })
    )

  it("openai SDK: images.generate with b64_json and n=2 gives two PNGs that decode; the body is OpenAI's ImagesResponse", async () => {
    openai.reply(openAiImagesReply({ revisedPrompt: "A red fox in snow, photographed at dawn" }))
    const response = await client.images.generate({ model: "dall-e-3", prompt: "a fox", n: 1, response_format: "b64_json", style: "natural", quality: "hd" })
    expect(openai.requests[0]!.url).toBe("/v1/images/generations")
    expect(openai.requests[0]!.headers.authorization).toBe("Bearer sk-up")
    expect(openai.requests[0]!.body).toEqual({ model: "dall-e-3", prompt: "a fox", n: 1, quality: "hd", style: "natural", response_format: "b64_json" })
    expect(response.data![0]!.revised_prompt).toBe("A red fox in snow, photographed at dawn")
    expect(validateAgainst("ImagesResponse", response)).toEqual([])

    openai.reply(openAiImagesReply({ gptImage: true }))
    const two = await client.images.generate({ model: "gpt-image-1", prompt: "two foxes", n: 2, response_format: "b64_json" })
    expect(openai.requests[1]!.body).toEqual({ model: "gpt-image-1", prompt: "two foxes", n: 2 })
    expect(two.data).toHaveLength(2)
    for (const image of two.data!) {
      expect(await decodedSize(Buffer.from(image.b64_json!, "base64"))).toEqual({ width: photoPng.width, height: photoPng.height })
    }
    expect(two.usage).toMatchObject({ input_tokens: 50, output_tokens: 8320, total_tokens: 8370 })
    expect(validateAgainst("ImagesResponse", two)).toEqual([])
  })

  it("url (the default): the gateway stores the images and its link serves the PNG without a key, n=2", async () => {
    gemini.always(geminiImageReply())
    const response = await client.images.generate({ model: "nano-banana", prompt: "a lighthouse", n: 2 })
    expect(gemini.requests).toHaveLength(2)
    expect(response.data).toHaveLength(2)
    const links = response.data!.map((d) => d.url!)
    expect(new Set(links).size).toBe(2)
    for (const link of links) {
      expect(link.startsWith(`${gw.url}/v1/images/generated/img_`)).toBe(true)
      const served = await fetch(link)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/png")
      const bytes = Buffer.from(await served.arrayBuffer())
      expect(bytes.equals(photoPng.bytes)).toBe(true)
      expect(await decodedSize(bytes)).toEqual({ width: photoPng.width, height: photoPng.height })
    }
    // A link whose expiry or signature was changed is refused.
    const forged = new URL(links[0]!)
    forged.searchParams.set("expires", String(Number(forged.searchParams.get("expires")) + 3600))
    expect((await fetch(forged)).status).toBe(404)
    const wrongSignature = new URL(links[0]!)
    wrongSignature.searchParams.set("signature", "A".repeat(43))
    expect((await fetch(wrongSignature)).status).toBe(404)
  })

  it("an image link answers 404 once it expired, and the sweeper deletes its row and bytes", async () => {
    openai.reply(openAiImagesReply())
    const res = await gw.postJson("/v1/images/generations", { model: "dall-e-3", prompt: "a clock" })
    expect(res.status).toBe(200)
    const link = ((await res.json()) as any).data[0].url as string
    expect((await fetch(link)).status).toBe(200)
    const name = new URL(link).pathname.split("/").at(-1)!
    await new Promise((r) => setTimeout(r, ttlSeconds * 1000 + 1200))
    const expired = await fetch(link)
    expect(expired.status).toBe(404)
    expect(((await expired.json()) as any).error).toMatchObject({ type: "not_found_error", code: "image_not_found" })
    const left = await gw.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`SELECT id FROM generated_images WHERE storage_key LIKE ${`%/${name}`}`
        const stored = yield* (yield* FileStore).exists(`${gw.key.projectId}/images/${name}`)
        return { rows: rows.length, stored }
      })
    )
    expect(left).toEqual({ rows: 0, stored: false })
  })

  it("b64_json from an upstream that only links: the image is downloaded through the guarded fetcher", async () => {
    compat.reply(openAiImagesReply({ linkBase: `${host.url}/upstream` }))
    const res = await gw.postJson("/v1/images/generations", { model: "flux", prompt: "a boat", n: 2, response_format: "b64_json" })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(compat.requests[0]!.body).toMatchObject({ model: "flux-schnell", n: 2, response_format: "b64_json" })
    expect(host.hits.filter((h) => h.startsWith("/upstream"))).toEqual(["/upstream/0.png", "/upstream/1.png"])
    expect(body.data.map((d: any) => Buffer.from(d.b64_json, "base64").equals(photoPng.bytes))).toEqual([true, true])
  })

  it("POST /v1/images answers {id, created, model, data, usage}: token usage for token-billed models, image_count for per-image ones", async () => {
    gemini.always(geminiImageReply())
    const res = await gw.postJson("/v1/images", { model: "nano-banana", prompt: "a cat", aspect_ratio: "16:9" })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(Object.keys(body).sort()).toEqual(["created", "data", "id", "model", "usage"])
    expect(body).toMatchObject({ model: "nano-banana", data: [{ b64_json: photoPng.bytes.toString("base64") }] })
    expect(body.id).toMatch(/^svc_/)
    expect(typeof body.created).toBe("number")
    expect(body.usage).toEqual({
      input_tokens: 12,
      output_tokens: 1295,
      total_tokens: 1307,
      input_tokens_details: { text_tokens: 12, image_tokens: 0 },
      output_tokens_details: { text_tokens: 5, image_tokens: 1290 }
    })
    expect(gemini.requests[0]!.url).toBe("/v1beta/models/gemini-2.5-flash-image:generateContent")
    expect(gemini.requests[0]!.headers["x-goog-api-key"]).toBe("g-key")

    gemini.reset()
    gemini.always(imagenReply())
    const perImage = await gw.postJson("/v1/images", { model: "imagen", prompt: "a dog", n: 3 })
    const imagen = (await perImage.json()) as any
    expect(imagen.data).toHaveLength(3)
    expect(imagen.usage).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0, image_count: 3 })
    expect(gemini.requests[0]!.url).toBe("/v1beta/models/imagen-4.0-generate-001:predict")
  })

  it("a content-policy refusal is a 400 naming the prompt, not a 5xx, and is not retried elsewhere", async () => {
    openai.reply(openAiPolicyRefusal())
    const dalle = await gw.postJson("/v1/images/generations", { model: "dall-e-3", prompt: "something refused" })
    expect(dalle.status).toBe(400)
    expect(((await dalle.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "content_policy_violation", param: "prompt" })
    openai.reply(openAiPolicyRefusal("moderation_blocked"))
    const gpt = await gw.postJson("/v1/images/generations", { model: "gpt-image-1", prompt: "something refused" })
    expect(gpt.status).toBe(400)
    expect(((await gpt.json()) as any).error.code).toBe("content_policy_violation")
    expect(openai.requests).toHaveLength(2)

    // Gemini says it with a finish reason; the fallback (Imagen) is not tried for a refusal.
    gemini.reply(geminiImageSafety)
    const banana = await gw.postJson("/v1/images", { model: "nano-banana", prompt: "something refused" })
    expect(banana.status).toBe(400)
    expect(((await banana.json()) as any).error).toMatchObject({ code: "content_policy_violation", param: "prompt" })
    expect(gemini.requests).toHaveLength(1)
  })

  it("falls back to a model whose catalogue accepts the same options when the first fails", async () => {
    gemini.always((request) => (request.url.includes(":predict") ? imagenReply()(request) : { kind: "json", status: 503, body: { error: { code: 503, status: "UNAVAILABLE", message: "overloaded" } } }))
    const res = await gw.postJson("/v1/images", { model: "nano-banana", prompt: "a tree", aspect_ratio: "16:9" })
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    expect(body.model).toBe("imagen")
    expect(res.headers.get("x-gateway-provider")).toBe("gemini")
    const predict = gemini.requests.find((r) => r.url.includes(":predict"))!
    expect(predict.body).toEqual({ instances: [{ prompt: "a tree" }], parameters: { sampleCount: 1, aspectRatio: "16:9" } })
  })

  it("records one usage event per request with the image count in units, priced per image or per token", async () => {
    const fresh = await gw.createKey()
    openai.reply(openAiImagesReply())
    await (await gw.postJson("/v1/images/generations", { model: "dall-e-3", prompt: "a pear", response_format: "b64_json" }, fresh.secret)).arrayBuffer()
    openai.reply(openAiImagesReply({ gptImage: true }))
    await (await gw.postJson("/v1/images/generations", { model: "gpt-image-1", prompt: "pears", n: 2, response_format: "b64_json" }, fresh.secret)).arrayBuffer()
    await new Promise((r) => setTimeout(r, 50))
    const rows = await usageOf(fresh.keyId)
    expect(rows).toHaveLength(2)
    const byUnits = [...rows].sort((a, b) => Number(a["units"]) - Number(b["units"]))
    expect(byUnits[0]).toMatchObject({ endpoint: "images", status: 200, units: 1, prompt_tokens: 0, completion_tokens: 0 })
    expect(Number(byUnits[0]!["cost_nano_usd"])).toBe(40_000_000)
    expect(byUnits[1]).toMatchObject({ endpoint: "images", status: 200, units: 2, prompt_tokens: 50, completion_tokens: 8320 })
    // 50 input tokens at $5/M plus 8320 output tokens at $40/M
    expect(Number(byUnits[1]!["cost_nano_usd"])).toBe(50 * 5_000 + 8320 * 40_000)
  })

  it("needs the images scope", async () => {
    const chatOnly = await gw.createKey({ scopes: ["chat"] })
    for (const path of ["/v1/images/generations", "/v1/images"]) {
      const res = await gw.postJson(path, { model: "dall-e-3", prompt: "x" }, chatOnly.secret)
      expect(res.status).toBe(403)
    }
    expect(openai.requests).toHaveLength(0)
  })
})
