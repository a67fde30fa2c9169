import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import OpenAI, { toFile } from "openai"
import { fixturesDir } from "../support/Fixtures.ts"
import { alphaPng, geminiImageReply, openAiImagesReply, photoJpeg, photoPng, photoWebp, startImageHost } from "../support/ImageUpstreams.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

type Body = Record<string, any>

const dataUrl = (bytes: Buffer, mime: string) => `data:${mime};base64,${bytes.toString("base64")}`
const reference = (url: string) => ({ type: "image_url", image_url: { url } })

describe("input_references of POST /v1/images", () => {
  const gw = useGateway({
    upstreams: ["openai", "gemini"],
    key: { withUser: true },
    config: ({ openai, gemini }) => ({
      fetch: { allow_private_networks: true },
      images: { max_input_image_mb: 1 },
      providers: [
        { id: "openai", kind: "openai", base_url: `${openai.url}/v1`, api_key: "sk-up" },
        { id: "gemini", kind: "gemini", base_url: `${gemini.url}/v1beta`, api_key: "g-key" }
      ],
      models: [
        { id: "gpt-image-1", kind: "image", deployments: [{ provider: "openai", model: "gpt-image-1" }], image: { image_input: true, max_input_images: 3 } },
        { id: "dall-e-2", kind: "image", deployments: [{ provider: "openai", model: "dall-e-2" }], image: { image_input: true, resolutions: ["512"] } },
        { id: "nano-banana", kind: "image", deployments: [{ provider: "gemini", model: "gemini-2.5-flash-image" }], image: { image_input: true, max_input_images: 3 } },
        { id: "dall-e-3", kind: "image", deployments: [{ provider: "openai", model: "dall-e-3" }] }
      ]
    })
  })
  const { openai, gemini } = gw.upstreams
  let host: Awaited<ReturnType<typeof startImageHost>>
  let ownFile: string
  let otherProjectFile: string

  beforeAll(async () => {
    host = await startImageHost(photoJpeg)
    const mine = openAiClient(gw.url, gw.key.secret)
    ownFile = (await mine.files.create({ file: await toFile(photoWebp.bytes, "photo.webp", { type: "image/webp" }), purpose: "vision" })).id
    const stranger = openAiClient(gw.url, (await gw.createKey({ withUser: true })).secret)
    otherProjectFile = (await stranger.files.create({ file: await toFile(alphaPng.bytes, "alpha.png", { type: "image/png" }), purpose: "vision" })).id
  })
  afterAll(async () => {
    await host.close()
  })

  const edit = (model: string, references: Array<unknown>) => gw.postJson("/v1/images", { model, prompt: "make it blue", input_references: references })

  it("a data URL, an http(s) URL and a file id of the key's project all reach a GPT image edit as data URLs", async () => {
    openai.always(openAiImagesReply())
    const res = await edit("gpt-image-1", [reference(dataUrl(photoPng.bytes, "image/png")), reference(`${host.url}/photo.jpg`), reference(ownFile)])
    expect(res.status, await res.clone().text()).toBe(200)
    expect(openai.requests[0]!.url).toBe("/v1/images/edits")
    const sent = openai.requests[0]!.body as Body
    expect(sent["model"]).toBe("gpt-image-1")
    expect(sent["images"]).toEqual([
      { image_url: dataUrl(photoPng.bytes, "image/png") },
      { image_url: dataUrl(photoJpeg.bytes, "image/jpeg") },
      { image_url: dataUrl(photoWebp.bytes, "image/webp") }
    ])
    expect(host.hits).toContain("/photo.jpg")
    expect(((await res.json()) as Body)["data"]).toHaveLength(1)
  })

  it("a file id may also come as image_url.file_id", async () => {
    openai.always(openAiImagesReply())
    const res = await edit("gpt-image-1", [{ type: "image_url", image_url: { file_id: ownFile } }])
    expect(res.status).toBe(200)
    expect((openai.requests[0]!.body as Body)["images"]).toEqual([{ image_url: dataUrl(photoWebp.bytes, "image/webp") }])
  })

  it("dall-e-2 edits go up as a multipart upload carrying the image bytes", async () => {
    openai.always(openAiImagesReply())
    const res = await edit("dall-e-2", [reference(dataUrl(photoPng.bytes, "image/png"))])
    expect(res.status).toBe(200)
    const request = openai.requests[0]!
    expect(request.url).toBe("/v1/images/edits")
    expect(request.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/)
    expect(request.bytes.includes(photoPng.bytes)).toBe(true)
    expect(request.rawBody).toContain('name="image"; filename="image-1.png"')
    expect(request.rawBody).toMatch(/name="model"\r\n\r\ndall-e-2\r\n/)
    expect(request.rawBody).toMatch(/name="response_format"\r\n\r\nb64_json\r\n/)
  })

  it("Gemini gets each input image as inline data after the prompt", async () => {
    gemini.always(geminiImageReply())
    const res = await edit("nano-banana", [reference(dataUrl(photoPng.bytes, "image/png")), reference(ownFile)])
    expect(res.status).toBe(200)
    expect((gemini.requests[0]!.body as Body)["contents"]).toEqual([
      {
        role: "user",
        parts: [
          { text: "make it blue" },
          { inlineData: { mimeType: "image/png", data: photoPng.bytes.toString("base64") } },
          { inlineData: { mimeType: "image/webp", data: photoWebp.bytes.toString("base64") } }
        ]
      }
    ])
  })

  it("another project's file id is refused exactly like an unknown one", async () => {
    const foreign = await edit("gpt-image-1", [reference(otherProjectFile)])
    const unknown = await edit("gpt-image-1", [reference("file-doesNotExist123")])
    expect(foreign.status).toBe(400)
    expect(unknown.status).toBe(400)
    const [a, b] = [((await foreign.json()) as Body)["error"], ((await unknown.json()) as Body)["error"]]
    expect(a).toEqual({ ...b, message: `No such File object: ${otherProjectFile}` })
    expect(b).toMatchObject({ type: "invalid_request_error", param: "input_references[0].image_url.url", code: "file_not_found" })
    expect(openai.requests).toHaveLength(0)
  })

  it("refuses, naming the reference, what is not a usable image, before anything goes upstream", async () => {
    const bmp = readFileSync(NodePath.join(fixturesDir, "bad/image.bmp"))
    const cases: Array<[unknown, number, string]> = [
      [reference("data:image/png;base64,@@not*base64@@"), 400, "input_references[0].image_url.url"],
      [reference("data:image/png,rawdata"), 400, "input_references[0].image_url.url"],
      [reference(dataUrl(Buffer.from("plain text, not an image"), "image/png")), 400, "input_references[0].image_url.url"],
      [reference(dataUrl(bmp, "image/bmp")), 400, "input_references[0].image_url.url"],
      [reference(`${host.url}/missing.png`), 400, "input_references[0].image_url.url"],
      [reference(`${host.url}/text`), 400, "input_references[0].image_url.url"],
      [reference("ftp://example.com/a.png"), 400, "input_references[0].image_url.url"],
      [{ type: "image_url", image_url: { url: "x", file_id: ownFile } }, 400, "input_references[0].image_url"],
      [{ type: "input_image", image_url: { url: ownFile } }, 400, "input_references[0].type"],
      [reference(dataUrl(Buffer.alloc(2 * 1024 * 1024, 1), "image/png")), 413, "input_references[0].image_url.url"]
    ]
    for (const [item, status, param] of cases) {
      const res = await edit("gpt-image-1", [item])
      expect(res.status, JSON.stringify(item).slice(0, 80)).toBe(status)
      expect(((await res.json()) as Body)["error"]["param"]).toBe(param)
    }
    const tooMany = await edit("gpt-image-1", Array.from({ length: 4 }, () => reference(ownFile)))
    expect(((await tooMany.json()) as Body)["error"]).toMatchObject({ param: "input_references", code: "unsupported_value" })
    const noInput = await edit("dall-e-3", [reference(ownFile)])
    expect(((await noInput.json()) as Body)["error"]).toMatchObject({ param: "input_references", code: "unsupported_parameter" })
    expect(openai.requests).toHaveLength(0)
  })

  it("the openai SDK's client error carries the field", async () => {
    const client = openAiClient(gw.url, gw.key.secret)
    const error = await client
      .post("/images", { body: { model: "gpt-image-1", prompt: "x", input_references: [reference("data:image/png;base64,%%%")] } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(((error as InstanceType<typeof OpenAI.BadRequestError>).error as Body)["param"]).toBe("input_references[0].image_url.url")
  })
})
