import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI, { toFile } from "openai"
import { anthropicKit } from "../Providers/AnthropicKit.ts"
import { geminiKit } from "../Providers/GeminiKit.ts"
import { openAiKit } from "../Providers/OpenAiKit.ts"
import type { RecordedRequest } from "../support/FakeUpstream.ts"
import { fixturesDir } from "../support/Fixtures.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

const manifest = JSON.parse(readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8")) as {
  files: Array<{ path: string; expected_tokens?: Array<string> }>
}
const tokensOf = (path: string) => manifest.files.find((f) => f.path === path)!.expected_tokens!
const fixture = (path: string) => readFileSync(NodePath.join(fixturesDir, path))
const collapse = (text: string) => text.replace(/\s+/g, " ")
const body = (request: RecordedRequest) => request.body as Record<string, any>

describe("document parts in chat reach each provider in the right form", () => {
  const chat = (id: string, provider: string, vision: boolean) => ({
    id,
    kind: "chat",
    deployments: [{ provider, model: `${id}-upstream` }],
    capabilities: { vision, file_input: true, max_output_tokens: 1024 }
  })
  const gw = useGateway({
    config: ({ upstream }) => ({
      fetch: { allow_private_networks: true },
      providers: [
        { id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "k" },
        { id: "anthropic", kind: "anthropic", base_url: `${upstream.url}/v1`, api_key: "k" },
        { id: "gemini", kind: "gemini", base_url: `${upstream.url}/v1beta`, api_key: "k" },
        { id: "local", kind: "openai-compatible", profile: "vllm", base_url: `${upstream.url}/v1`, api_key: "k" }
      ],
      models: [
        chat("gpt", "openai", true),
        chat("claude", "anthropic", true),
        chat("gem", "gemini", true),
        chat("local-vision", "local", true),
        chat("local-text", "local", false)
      ]
    }),
    key: { withUser: true }
  })
  const { upstream } = gw
  let client: OpenAI
  // Serves the corpus by URL: `/<name>` from documents/, `/img/<name>` from images/.
  let docs: Server
  let docsUrl: string
  /** Requests the document server has answered, by path. */
  const served = new Map<string, number>()

  beforeAll(async () => {
    client = openAiClient(gw.url, gw.key.secret)
    docs = createServer((req, res) => {
      const name = (req.url ?? "").slice(1)
      served.set(name, (served.get(name) ?? 0) + 1)
      const path = name.startsWith("img/") ? `images/${name.slice(4)}` : `documents/${name}`
      const type = path.endsWith(".pdf") ? "application/pdf" : path.endsWith(".png") ? "image/png" : "application/octet-stream"
      res.writeHead(200, { "content-type": type })
      res.end(fixture(path))
    })
    await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve))
    docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((r) => docs?.close(r))
  })

  const ask = (model: string, file: Record<string, unknown>) =>
    client.chat.completions.create({
      model,
      messages: [{ role: "user", content: [{ type: "text", text: "What is the ledger number?" }, { type: "file", file } as never] }]
    })

  it("file_id of an uploaded PDF -> OpenAI file part with the PDF bytes", async () => {
    const pdf = fixture("documents/report.pdf")
    const uploaded = await client.files.create({ file: await toFile(pdf, "report.pdf"), purpose: "user_data" })
    upstream.reply(openAiKit.text)
    await ask("gpt", { file_id: uploaded.id })
    const part = body(upstream.requests[0]!).messages[0].content[1]
    expect(part.type).toBe("file")
    expect(part.file.filename).toBe("report.pdf")
    expect(part.file.file_data).toBe(`data:application/pdf;base64,${pdf.toString("base64")}`)
  })

  it("inline PDF -> Anthropic document block", async () => {
    const pdf = fixture("documents/report.pdf")
    upstream.reply(anthropicKit.text)
    await ask("claude", { filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf.toString("base64")}` })
    const blocks = body(upstream.requests[0]!).messages[0].content as Array<any>
    const document = blocks.find((b) => b.type === "document")
    expect(document.source).toMatchObject({ type: "base64", media_type: "application/pdf", data: pdf.toString("base64") })
  })

  it("inline DOCX -> extracted text for Anthropic, which does not read Word files", async () => {
    upstream.reply(anthropicKit.text)
    await ask("claude", { filename: "report.docx", file_data: fixture("documents/report.docx").toString("base64") })
    const text = collapse(JSON.stringify(body(upstream.requests[0]!).messages[0].content))
    for (const token of tokensOf("documents/report.docx")) expect(text).toContain(collapse(token))
  })

  it("PDF by URL (through the guarded fetcher) -> Gemini inlineData", async () => {
    upstream.reply(geminiKit.text)
    await ask("gem", { file_url: `${docsUrl}/report.pdf` })
    const sent = body(upstream.requests[0]!)
    const parts = sent.contents[0].parts as Array<any>
    const inline = parts.find((p) => p.inlineData !== undefined)
    expect(inline.inlineData).toEqual({ mimeType: "application/pdf", data: fixture("documents/report.pdf").toString("base64") })
    expect(upstream.requests[0]!.url).toContain("gem-upstream:generateContent")
  })

  it("a document URL named by three parts is fetched and read once, and reaches the provider for each part", async () => {
    upstream.reply(geminiKit.text)
    const file = { type: "file", file: { file_url: `${docsUrl}/report.docx` } } as never
    await client.chat.completions.create({ model: "gem", messages: [{ role: "user", content: [{ type: "text", text: "Compare." }, file, file, file] }] })
    expect(served.get("report.docx")).toBe(1)
    const parts = body(upstream.requests[0]!).contents[0].parts as Array<any>
    const texts = parts.filter((p) => typeof p.text === "string" && tokensOf("documents/report.docx").every((token) => collapse(p.text).includes(token)))
    expect(texts).toHaveLength(3)
  })

  it("an https-style image URL is fetched through the guarded fetcher for Gemini and sent inline", async () => {
    upstream.reply(geminiKit.text)
    await client.chat.completions.create({
      model: "gem",
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `${docsUrl}/img/photo.png` } }] }]
    })
    const parts = body(upstream.requests[0]!).contents[0].parts as Array<any>
    const inline = parts.find((p) => p.inlineData !== undefined)
    expect(inline.inlineData.mimeType).toBe("image/png")
    expect(inline.inlineData.data).toBe(fixture("images/photo.png").toString("base64"))
  })

  it("PDF to an OpenAI-compatible vision model -> extracted text plus rendered pages", async () => {
    upstream.reply(openAiKit.text)
    await ask("local-vision", { file_url: `${docsUrl}/multipage.pdf` })
    const parts = body(upstream.requests[0]!).messages[0].content as Array<any>
    const text = collapse(parts.filter((p) => p.type === "text").map((p) => p.text).join(" "))
    for (const token of tokensOf("documents/multipage.pdf")) expect(text).toContain(token)
    const images = parts.filter((p) => p.type === "image_url")
    expect(images).toHaveLength(3)
    expect(images[0].image_url.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/)
  })

  it("a scanned PDF to a model without vision -> 400 saying a vision model is needed", async () => {
    const error = (await ask("local-text", { filename: "scanned.pdf", file_data: fixture("documents/scanned.pdf").toString("base64") }).catch(
      (e: unknown) => e
    )) as InstanceType<typeof OpenAI.APIError>
    expect(error.status).toBe(400)
    expect(error.message).toContain("vision")
    expect(upstream.requests).toHaveLength(0)
  })

  it("an unreadable file -> 400 naming the file, before any upstream call", async () => {
    const error = (await ask("gpt", { filename: "garbage.pdf", file_data: fixture("bad/garbage.pdf").toString("base64") }).catch(
      (e: unknown) => e
    )) as InstanceType<typeof OpenAI.APIError>
    expect(error.status).toBe(400)
    expect(error.message).toContain("garbage.pdf")
    expect(upstream.requests).toHaveLength(0)
  })

  it("an unreachable URL -> 400 naming the field", async () => {
    const error = (await ask("gpt", { file_url: "http://127.0.0.1:9/nothing.pdf" }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>
    expect(error.status).toBe(400)
    expect((error.error as Record<string, unknown>)["param"]).toBe("messages[0].content[1].file.file_url")
  })

  it("a file_id of another project is not found", async () => {
    const stranger = openAiClient(gw.url, (await gw.createKey({ withUser: true })).secret)
    const theirs = await stranger.files.create({ file: await toFile(Buffer.from("secret"), "secret.txt"), purpose: "user_data" })
    const error = (await ask("gpt", { file_id: theirs.id }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>
    expect(error.status).toBe(400)
    expect(error.message).toContain(`No such File object: ${theirs.id}`)
  })
})
