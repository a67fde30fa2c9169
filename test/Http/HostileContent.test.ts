import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { expectBounded as expectWithin, type HostileGateway, type Measurement, startHostileGateway } from "../support/HostileHarness.ts"
import { docxBomb, gzipBomb, largePage, largeSitemap, nestedPage, pdfWithPages, xlsxHugeRange } from "../support/HostileFixtures.ts"

/**
 * Hostile documents, pages and chat requests sent through the real HTTP server of a gateway
 * process, each while /healthz is probed every 50 ms. For each: the gateway's event loop is never
 * held past the harness's `loopBoundMs` (main-thread CPU in one turn, measured inside the gateway), its resident memory stays under
 * `peakRssBoundMb`, the request gets a 4xx (or a clean 5xx) naming the limit, and the gateway
 * then still serves a normal request.
 */
const peakRssBoundMb = 1_200

let gw: HostileGateway

const mib = 1024 * 1024

beforeAll(async () => {
  gw = await startHostileGateway({
    config: () => ({
      files: { max_parts: 100, extraction: { workers: 2, timeout_ms: 15_000, max_memory_mb: 512 } },
      tools: { respect_robots_txt: false }
    })
  })
}, 120_000)

afterAll(async () => {
  await gw?.stop()
})

const expectBounded = (measured: Measurement<unknown>, what: string) => expectWithin(measured, what, { peakRssMb: peakRssBoundMb })

/** The error envelope of a refused request: its status and message. */
const refusal = async (res: Response) => {
  const body = (await res.json()) as { readonly error?: { readonly message?: string; readonly code?: string | null; readonly param?: string | null } }
  return { status: res.status, message: body.error?.message ?? "", code: body.error?.code ?? null, param: body.error?.param ?? null }
}

const chat = (content: ReadonlyArray<unknown>) =>
  gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content }] })

const upload = async (bytes: Uint8Array, filename: string): Promise<string> => {
  const form = new FormData()
  form.append("purpose", "user_data")
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), filename)
  const res = await gw.request("/v1/files", { method: "POST", body: form })
  expect(res.status, await res.clone().text()).toBe(200)
  return ((await res.json()) as { readonly id: string }).id
}

const scrape = (url: string) => gw.postJson("/v1/tools/scrape", { url })

describe("hostile content through the HTTP server, with /healthz probed every 50 ms", { timeout: 120_000 }, () => {
  it("a data: URL of 40,000 line breaks and one stray character: 400, in linear time", async () => {
    const url = `data:image/png;base64,AAAA${"\n".repeat(40_000)}!`
    const measured = await gw.measure(async () => refusal(await chat([{ type: "image_url", image_url: { url } }])))
    expectBounded(measured, "data URL")
    expect(measured.value).toMatchObject({ status: 400, param: "messages[0].content[0].image_url.url", code: "invalid_base64" })
  })

  it("a 1 MB DOCX inflating to 1 GB: 400 naming the ZIP limit it passed, memory bounded", async () => {
    const bomb = docxBomb(1_000)
    expect(bomb.length).toBeLessThan(2 * mib)
    const id = await upload(bomb, "bomb.docx")
    const measured = await gw.measure(async () => refusal(await chat([{ type: "text", text: "read" }, { type: "file", file: { file_id: id } }])))
    expectBounded(measured, "DOCX bomb")
    expect(measured.value).toMatchObject({ status: 400, code: "file_too_complex" })
    expect(measured.value.message).toMatch(/files\.extraction\.max_(unzipped_mb|zip_ratio)/)
  })

  it("an XLSX whose sheet declares A1:XFD1048576 is read from the cells it has", async () => {
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "read" }) })
    const data = `data:application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;base64,${Buffer.from(xlsxHugeRange()).toString("base64")}`
    const measured = await gw.measure(async () => {
      const res = await chat([{ type: "file", file: { file_data: data, filename: "huge.xlsx" } }])
      return { status: res.status, body: await res.text() }
    })
    expectBounded(measured, "huge range")
    expect(measured.value.status, measured.value.body).toBe(200)
    const sent = JSON.stringify(gw.upstream.requests.at(-1)?.body)
    expect(sent).toContain("sepia widget")
    expect(sent).toContain("(A1:D4)")
  })

  it("a PDF declaring 100,000 pages: 400 naming the page limit", async () => {
    const pdf = pdfWithPages(100_000)
    const id = await upload(pdf, "pages.pdf")
    const measured = await gw.measure(async () => refusal(await chat([{ type: "file", file: { file_id: id } }])))
    expectBounded(measured, "100,000 pages")
    expect(measured.value).toMatchObject({ status: 400, code: "file_too_complex" })
    expect(measured.value.message).toContain("files.extraction.max_pages")
  })

  it("1,000 references to one file_id: 400 naming the part limit, before anything is read", async () => {
    const id = await upload(new TextEncoder().encode("a small note\n".repeat(100)), "note.txt")
    const parts = Array.from({ length: 1_000 }, () => ({ type: "file", file: { file_id: id } }))
    const measured = await gw.measure(async () => refusal(await chat(parts)))
    expectBounded(measured, "1,000 file_ids")
    expect(measured.value).toMatchObject({ status: 400, code: "too_many_parts", param: "messages[0].content[100].file.file_id" })
    expect(measured.value.message).toContain("files.max_parts")
  })

  it("a 2 MB file named 40 times: 413 naming the request's byte budget", async () => {
    const id = await upload(new TextEncoder().encode("x".repeat(2 * mib)), "big.txt")
    const parts = Array.from({ length: 40 }, () => ({ type: "file", file: { file_id: id } }))
    const measured = await gw.measure(async () => refusal(await chat(parts)))
    expectBounded(measured, "byte budget")
    expect(measured.value).toMatchObject({ status: 413, param: "messages[0].content[25].file.file_id" })
    expect(measured.value.message).toContain("files.max_inline_mb")
  })

  it("a 1.85 MB page and a page of 20,000 nested divs are read off the event loop", async () => {
    gw.site.serve("/large", (_, res) => res.writeHead(200, { "content-type": "text/html" }).end(largePage(1.85 * mib)))
    gw.site.serve("/deep", (_, res) => res.writeHead(200, { "content-type": "text/html" }).end(nestedPage(20_000)))
    for (const path of ["/large", "/deep"]) {
      const measured = await gw.measure(async () => {
        const res = await scrape(`${gw.site.url}${path}`)
        return { status: res.status, body: await res.text() }
      })
      expectBounded(measured, path)
      // Read, or refused with a 400 naming the bound it passed; never a 500 or a stalled gateway.
      if (measured.value.status !== 200) {
        expect(measured.value.status, measured.value.body).toBe(400)
        expect(measured.value.body).toMatch(/too long|nest|memory/)
      }
    }
  })

  it("a 3.7 MB sitemap is parsed off the event loop", async () => {
    gw.site.serve("/sitemap.xml", (_, res) => res.writeHead(200, { "content-type": "application/xml" }).end(largeSitemap(gw.site.url, 3.7 * mib)))
    gw.site.serve("/", (_, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body><a href='/a'>a</a></body></html>"))
    const measured = await gw.measure(async () => {
      const res = await gw.postJson("/v1/tools/map", { url: gw.site.url, limit: 5_000 })
      return { status: res.status, body: (await res.json()) as { readonly urls?: ReadonlyArray<string> } }
    })
    expectBounded(measured, "sitemap")
    expect(measured.value.status).toBe(200)
    expect(measured.value.body.urls?.length).toBe(5_000)
  })

  it("a gzip bomb served to scrape is cut at the tool's byte limit", async () => {
    const bomb = gzipBomb(2_000)
    gw.site.serve("/bomb", (_, res) => res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(bomb))
    const measured = await gw.measure(async () => refusal(await scrape(`${gw.site.url}/bomb`)))
    expectBounded(measured, "gzip bomb")
    expect(measured.value).toMatchObject({ status: 400, param: "url" })
    expect(measured.value.message).toMatch(/MB/)
  })

  it("afterwards, a normal chat with a document and an image is answered", async () => {
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "fine" }) })
    const id = await upload(new TextEncoder().encode("The launch code is tangerine.\n"), "notes.txt")
    const res = await chat([
      { type: "text", text: "What is the code?" },
      { type: "file", file: { file_id: id } },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }
    ])
    expect(res.status, await res.clone().text()).toBe(200)
    expect(JSON.stringify(gw.upstream.requests.at(-1)?.body)).toContain("tangerine")
  })
})
