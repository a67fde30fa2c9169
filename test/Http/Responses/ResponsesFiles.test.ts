import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI, { toFile } from "openai"
import { fixturesDir } from "../../support/Fixtures.ts"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { responsesConfig, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { useGateway } from "../../support/UseGateway.ts"

const fixture = (path: string) => readFileSync(NodePath.join(fixturesDir, path))
const png = fixture("images/photo.png")
const pdf = fixture("documents/report.pdf")

/**
 * `input_image` and `input_file` parts that name a file uploaded to the gateway's `/v1/files`
 * by `file_id`: the provider gets the file's bytes in its own format (OpenAI's own Responses API
 * included, which would not know the gateway's id), the stored conversation keeps the id, and
 * a file of another project is not found.
 */
describe("Responses: files by file_id", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams, { files: { max_inline_mb: 1, max_parts: 3 } }), key: { withUser: true } })
  let client: OpenAI
  let image: string
  let document: string
  beforeAll(async () => {
    client = openAiClient(gw.url, gw.key.secret)
    image = (await client.files.create({ file: await toFile(png, "photo.png"), purpose: "vision" })).id
    document = (await client.files.create({ file: await toFile(pdf, "report.pdf"), purpose: "user_data" })).id
  })
  const ask = (model: string, part: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    gw.postJson("/v1/responses", { model, input: [{ role: "user", content: [{ type: "input_text", text: "What is this?" }, part] }], ...extra })

  describe.each(responsesTargets)("$name", (target) => {
    it("an input_image by file_id reaches the provider as the image's bytes", async () => {
      const upstream = gw.upstreams[target.name]
      upstream.reply(target.kit.text)
      const res = await ask(target.model, { type: "input_image", file_id: image, detail: "auto" })
      expect(res.status, await res.clone().text()).toBe(200)
      target.kit.assertImage(upstream.requests[0]!, png.toString("base64"))
      expect(JSON.stringify(upstream.requests[0]!.body)).not.toContain(image)
    })
  })

  it("an input_file by file_id goes to OpenAI's Responses API as file_data, to Anthropic as a document block", async () => {
    gw.upstreams.openai.reply(responsesTargets[0]!.kit.text)
    expect((await ask("gpt-r", { type: "input_file", file_id: document })).status).toBe(200)
    const sent = (gw.upstreams.openai.requests[0]!.body as { input: Array<{ content: Array<Record<string, unknown>> }> }).input[0]!.content[1]
    expect(sent).toEqual({ type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf.toString("base64")}` })

    gw.upstreams.anthropic.reply(responsesTargets[1]!.kit.text)
    expect((await ask("claude-r", { type: "input_file", file_id: document, filename: "q3.pdf" })).status).toBe(200)
    const blocks = (gw.upstreams.anthropic.requests[0]!.body as { messages: Array<{ content: Array<any> }> }).messages[0]!.content
    expect(blocks.find((b) => b.type === "document").source).toMatchObject({ type: "base64", media_type: "application/pdf", data: pdf.toString("base64") })
  })

  it("the stored response keeps the id, and a continuation sends the bytes again", async () => {
    const upstream = gw.upstreams.anthropic
    upstream.reply(responsesTargets[1]!.kit.text)
    const first = (await (await ask("claude-r", { type: "input_image", file_id: image })).json()) as { id: string }
    upstream.reply(responsesTargets[1]!.kit.text)
    const next = await gw.postJson("/v1/responses", { model: "claude-r", previous_response_id: first.id, input: "And now?" })
    expect(next.status).toBe(200)
    responsesTargets[1]!.kit.assertImage(upstream.requests[1]!, png.toString("base64"))
    const stored = await client.responses.retrieve(first.id)
    expect(stored.status).toBe("completed")
  })

  it("another project's file, a missing file and a file that is no image are 400s naming the part; nothing goes upstream", async () => {
    const other = await gw.createKey({ withUser: true })
    const theirs = (await openAiClient(gw.url, other.secret).files.create({ file: await toFile(png, "theirs.png"), purpose: "vision" })).id
    for (const [part, code] of [
      [{ type: "input_image", file_id: theirs }, "file_not_found"],
      [{ type: "input_file", file_id: "file-doesnotexist" }, "file_not_found"],
      [{ type: "input_image", file_id: document }, "invalid_image"]
    ] as const) {
      const res = await ask("claude-r", part)
      expect(res.status, JSON.stringify(part)).toBe(400)
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: "input[0].content[1].file_id", code } })
    }
    const both = await ask("claude-r", { type: "input_image", file_id: image, image_url: `data:image/png;base64,${png.toString("base64")}` })
    expect(both.status).toBe(400)
    expect(await both.json()).toMatchObject({ error: { param: "input[0].content[1]" } })
    expect(gw.upstreams.anthropic.requests).toHaveLength(0)
  })

  it("files together over files.max_inline_mb are refused from their recorded sizes, before any is read", async () => {
    const big = Buffer.concat([png, Buffer.alloc(700 * 1024)])
    const ids = await Promise.all([0, 1].map(async (i) => (await client.files.create({ file: await toFile(big, `big${i}.png`), purpose: "vision" })).id))
    gw.upstreams.anthropic.reply(responsesTargets[1]!.kit.text)
    const one = await gw.postJson("/v1/responses", { model: "claude-r", input: [{ role: "user", content: [{ type: "input_image", file_id: ids[0] }] }] })
    expect(one.status).toBe(200)
    const res = await gw.postJson("/v1/responses", { model: "claude-r", input: [{ role: "user", content: ids.map((id) => ({ type: "input_image", file_id: id })) }] })
    expect(res.status).toBe(413)
    const error = ((await res.json()) as { error: { param: string; message: string } }).error
    expect(error.param).toBe("input[0].content[1].file_id")
    expect(error.message).toContain("files.max_inline_mb")
    expect(gw.upstreams.anthropic.requests).toHaveLength(1)
  })

  it("more file parts than files.max_parts are refused naming the first one over", async () => {
    const res = await gw.postJson("/v1/responses", { model: "claude-r", input: [{ role: "user", content: [0, 1, 2, 3].map(() => ({ type: "input_image", file_id: image })) }] })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { param: "input[0].content[3].file_id", code: "too_many_parts" } })
    expect(gw.upstreams.anthropic.requests).toHaveLength(0)
  })
})
