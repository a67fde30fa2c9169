import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as NodePath from "node:path"
import { loadImage } from "@napi-rs/canvas"
import type { RecordedRequest, Reply } from "./FakeUpstream.ts"
import { fixturesDir } from "./Fixtures.ts"

/**
 * Fake image upstreams speaking the real wire formats (OpenAI's Images API, Gemini's
 * `generateContent` with image output, Imagen's `:predict`) whose images are files of the fixture
 * corpus, with the dimensions the corpus manifest records for them.
 */

export interface FixtureImage {
  readonly path: string
  readonly bytes: Buffer
  readonly width: number
  readonly height: number
  readonly mime: string
}

interface ManifestImage {
  readonly path: string
  readonly mime: string
  readonly width?: number
  readonly height?: number
}

const manifest = JSON.parse(readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8")) as { files: Array<ManifestImage> }

export const fixtureImage = (path: string): FixtureImage => {
  const entry = manifest.files.find((f) => f.path === path)
  if (entry?.width === undefined || entry.height === undefined) throw new Error(`${path} is not an image of the fixture manifest`)
  return { path, bytes: readFileSync(NodePath.join(fixturesDir, path)), width: entry.width, height: entry.height, mime: entry.mime }
}

export const photoPng = fixtureImage("images/photo.png")
export const alphaPng = fixtureImage("images/alpha.png")
export const photoJpeg = fixtureImage("images/photo.jpg")
export const photoWebp = fixtureImage("images/photo.webp")

/** Decodes image bytes for real (not a header peek) and gives their dimensions. */
export const decodedSize = async (bytes: Uint8Array): Promise<{ width: number; height: number }> => {
  const image = await loadImage(Buffer.from(bytes))
  return { width: image.width, height: image.height }
}

/** The `n` of an OpenAI-style request, JSON or multipart. */
const requestedN = (request: RecordedRequest): number => {
  if (typeof request.body === "object" && request.body !== null) return Number((request.body as { n?: number }).n ?? 1)
  const field = /name="n"\r\n\r\n(\d+)\r\n/.exec(request.rawBody)
  return field === null ? 1 : Number(field[1])
}

export interface OpenAiImagesOptions {
  readonly image?: FixtureImage
  /** Answer links under this base (`<base>/<n>.png`) instead of base64, as some servers always do. */
  readonly linkBase?: string
  /** Report GPT-image token usage and settings. */
  readonly gptImage?: boolean
  readonly revisedPrompt?: string
}

/** OpenAI's `ImagesResponse` for the recorded request: `n` images. */
export const openAiImagesReply = (options: OpenAiImagesOptions = {}) => (request: RecordedRequest): Reply => {
  const image = options.image ?? photoPng
  const n = requestedN(request)
  return {
    kind: "json",
    status: 200,
    body: {
      created: 1_713_833_628,
      data: Array.from({ length: n }, (_, i) => ({
        ...(options.linkBase === undefined ? { b64_json: image.bytes.toString("base64") } : { url: `${options.linkBase}/${i}.png` }),
        ...(options.revisedPrompt === undefined ? {} : { revised_prompt: options.revisedPrompt })
      })),
      ...(options.gptImage === true
        ? {
          background: "opaque",
          output_format: "png",
          quality: "high",
          size: "1024x1024",
          usage: { input_tokens: 50, output_tokens: 4160 * n, total_tokens: 50 + 4160 * n, input_tokens_details: { text_tokens: 10, image_tokens: 40 } }
        }
        : {})
    }
  }
}

/** OpenAI's refusal of a prompt by its safety system (`code` as the API sends it). */
export const openAiPolicyRefusal = (code = "content_policy_violation"): Reply => ({
  kind: "json",
  status: 400,
  body: { error: { code, message: "Your request was rejected as a result of our safety system.", param: null, type: "invalid_request_error" } }
})

/** A `GenerateContentResponse` of an image model: a text part, then the image as inline data. */
export const geminiImageReply = (image: FixtureImage = photoPng): Reply => ({
  kind: "json",
  status: 200,
  body: {
    candidates: [
      {
        content: { role: "model", parts: [{ text: "Here is the picture." }, { inlineData: { mimeType: image.mime, data: image.bytes.toString("base64") } }] },
        finishReason: "STOP",
        index: 0
      }
    ],
    usageMetadata: {
      promptTokenCount: 12,
      candidatesTokenCount: 1295,
      totalTokenCount: 1307,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 12 }],
      candidatesTokensDetails: [{ modality: "TEXT", tokenCount: 5 }, { modality: "IMAGE", tokenCount: 1290 }]
    },
    modelVersion: "gemini-2.5-flash-image",
    responseId: "image-response-1"
  }
})

/** A candidate Gemini stopped because the image broke its safety policy. */
export const geminiImageSafety: Reply = {
  kind: "json",
  status: 200,
  body: { candidates: [{ content: { role: "model", parts: [] }, finishReason: "IMAGE_SAFETY", index: 0 }], usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } }
}

/** Imagen's `:predict` answer: `sampleCount` images. */
export const imagenReply = (image: FixtureImage = photoPng) => (request: RecordedRequest): Reply => {
  const count = Number((request.body as { parameters?: { sampleCount?: number } }).parameters?.sampleCount ?? 1)
  return {
    kind: "json",
    status: 200,
    body: { predictions: Array.from({ length: count }, () => ({ bytesBase64Encoded: image.bytes.toString("base64"), mimeType: image.mime })) }
  }
}

/** A plain HTTP server on loopback that serves one image at every path (an upstream's image host, or a client's image URL). */
export const startImageHost = async (image: FixtureImage = photoPng): Promise<{ readonly url: string; readonly hits: Array<string>; readonly close: () => Promise<void> }> => {
  const hits: Array<string> = []
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "")
    if (req.url?.startsWith("/missing") === true) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { "content-type": req.url?.startsWith("/text") === true ? "text/plain" : image.mime })
    res.end(req.url?.startsWith("/text") === true ? "not an image" : image.bytes)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
