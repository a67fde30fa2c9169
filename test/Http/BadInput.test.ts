import { describe, expect, it } from "@effect/vitest"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { rawExchange, requestHead, stalledRequest } from "../support/RawHttp.ts"
import { useGateway } from "../support/UseGateway.ts"

const expectEnvelope = async (res: Response, status: number, param?: string | null) => {
  expect(res.status).toBe(status)
  const body = (await res.json()) as { error: Record<string, unknown> }
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"])
  expect(body.error["message"]).toEqual(expect.any(String))
  if (param !== undefined) expect(body.error["param"]).toBe(param)
  return body.error
}

/** Spec part 7 for hostile input: a 400 (or the route's 4xx) in the error shape, never a 500 or an empty body. */
describe("bad input is a 4xx in the error shape", () => {
  const admin = { authorization: "Bearer admin-secret-0123456789abcdef-0123", "content-type": "application/json" }
  const gw = useGateway({
    adminToken: "admin-secret-0123456789abcdef-0123",
    config: ({ upstream }) => ({
      files: { max_upload_mb: 1 },
      resilience: { body_read_timeout_seconds: 1 },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [
        { id: "gpt-test", kind: "chat", capabilities: { vision: true, audio_input: true, file_input: true }, deployments: [{ provider: "openai", model: "gpt-4o-mini" }] },
        { id: "embed-test", kind: "embedding", deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
      ]
    }),
    key: { withUser: true }
  })
  const get = (path: string, headers: Record<string, string> = gw.auth()) => fetch(`${gw.url}${path}`, { headers })
  const chat = (messages: unknown, extra: Record<string, unknown> = {}) => gw.postJson("/v1/chat/completions", { model: "gpt-test", messages, ...extra })

  it("malformed %-escapes and escaped control characters in paths and query strings", async () => {
    for (const path of ["/v1/files/%E0%A4%A", "/v1/models/%", "/v1/files/%00", "/v1/files/a%1Fb", "/v1/files?after=%00", "/v1/files?after=%zz", "/v1/chat/completions%00"]) {
      const error = await expectEnvelope(await get(path), 400)
      expect(error["code"]).toBe("invalid_url")
    }
    await expectEnvelope(await get("/admin/projects/%00", admin), 400)
    await expectEnvelope(await get("/admin/projects/%ZZ/keys", admin), 400)
  })

  it("a path parameter of any length is the route's own 404, and a request line Node refuses still gets a JSON body", async () => {
    expect((await expectEnvelope(await get(`/v1/files/${"f".repeat(5000)}`), 404))["message"]).toContain("No such File object")
    expect((await expectEnvelope(await get(`/v1/models/${"m".repeat(5000)}`), 404))["code"]).toBe("model_not_found")
    const raw = await rawExchange(gw.url, "GET /v1/mod\u0001els HTTP/1.1\r\nHost: x\r\n\r\n")
    expect(raw).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: { type: "invalid_request_error" } })
  })

  it("NUL in any JSON string or key names the field", async () => {
    const error = await expectEnvelope(await chat([{ role: "user", content: "a\u0000b" }]), 400, "messages[0].content")
    expect(error["message"]).toContain("NUL")
    await expectEnvelope(await gw.postJson("/v1/chat/completions", { model: "gpt\u0000", messages: [] }), 400, "model")
    await expectEnvelope(await chat([{ role: "user", content: "hi" }], { metadata: { "k\u0000": "v" } }), 400, "metadata.k\u0000")
    await expectEnvelope(await gw.postJson("/v1/embeddings", { model: "embed-test", input: ["ok", "x\u0000"] }), 400, "input[1]")
    // An unpaired surrogate is not text either (a pair, as ASCII-only encoders write emoji, is).
    await expectEnvelope(await gw.postJson("/v1/chat/completions", '{"model":"gpt-test\\ud800","messages":[]}'), 400, "model")
    await expectEnvelope(await chat([{ role: "user", content: "hi" }], { user: "\udc00" }), 400, "user")
    expect(gw.upstream.requests).toHaveLength(0)
  })

  it("inline base64 that does not decode is refused before any upstream call", async () => {
    const image = (url: string) => [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }]
    await expectEnvelope(await chat(image("data:image/png;base64,@@@###")), 400, "messages[0].content[0].image_url.url")
    await expectEnvelope(await chat(image("data:image/png;base64,abcde")), 400, "messages[0].content[0].image_url.url")
    await expectEnvelope(await chat(image("data:image/png,not-base64")), 400, "messages[0].content[0].image_url.url")
    const audio = [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "%%%%", format: "wav" } }] }]
    await expectEnvelope(await chat(audio), 400, "messages[0].content[0].input_audio.data")
    expect(gw.upstream.requests).toHaveLength(0)
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const valid = await chat(image(`data:image/png;base64,${Buffer.from("an image").toString("base64")}`))
    expect(valid.status).toBe(200)
  })

  it("admin fields with control characters and out-of-range timestamps", async () => {
    const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) })
    await expectEnvelope(await post("/admin/projects", { name: "a\u0000b" }), 400, "name")
    await expectEnvelope(await post("/admin/projects", { name: "tab\there" }), 400, "name")
    const project = (await (await post("/admin/projects", { name: "ok" })).json()) as { id: string }
    await expectEnvelope(await post(`/admin/projects/${project.id}/users`, { name: "u", email: "x\u0000@y" }), 400, "email")
    await expectEnvelope(await post(`/admin/projects/${project.id}/keys`, { user_id: "user_\u0001" }), 400, "user_id")
    await expectEnvelope(await post(`/admin/projects/${project.id}/keys`, { expires_at: 1e15 }), 400, "expires_at")
    await expectEnvelope(await get(`/admin/projects/${project.id}/usage?from=99999999999999`, admin), 400, "from")
    expect((await get(`/admin/projects/${project.id}/usage?from=0&to=253402300799`, admin)).status).toBe(200)
  })

  it("an admin body that stalls is a 408 in the error shape, and its connection is closed", async () => {
    const head = requestHead(["POST /admin/projects HTTP/1.1", "Host: gateway", "Authorization: Bearer admin-secret-0123456789abcdef-0123", "Content-Type: application/json", "Content-Length: 50"])
    const { text, closedAfterMs } = await stalledRequest(gw.url, head, '{"name":')
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: { type: "invalid_request_error" } })
    expect(closedAfterMs).toBeLessThan(5000)
  })

  it("upload file names with control characters; max_upload_mb is exact", async () => {
    const upload = (bytes: number, name = "a.bin") => {
      const form = new FormData()
      form.append("purpose", "user_data")
      form.append("file", new Blob([new Uint8Array(bytes)]), name)
      return fetch(`${gw.url}/v1/files`, { method: "POST", headers: gw.auth(), body: form })
    }
    await expectEnvelope(await upload(10, "a\u0001b.txt"), 400, "file")
    expect((await upload(1024 * 1024)).status).toBe(200)
    await expectEnvelope(await upload(1024 * 1024 + 1), 413, "file")
  })

  it("another project's file is a 404 exactly like an id that never existed", async () => {
    const form = new FormData()
    form.append("purpose", "user_data")
    form.append("file", new Blob(["secret notes"]), "notes.txt")
    const created = (await (await fetch(`${gw.url}/v1/files`, { method: "POST", headers: gw.auth(), body: form })).json()) as { id: string }
    const other = await gw.createKey({ withUser: true })
    const missing = `file-${"x".repeat(created.id.length - 5)}`
    const answers = async (id: string) =>
      Promise.all([
        get(`/v1/files/${id}`, gw.auth(other.secret)),
        get(`/v1/files/${id}/content`, gw.auth(other.secret)),
        fetch(`${gw.url}/v1/files/${id}`, { method: "DELETE", headers: gw.auth(other.secret) }),
        gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: [{ type: "file", file: { file_id: id } }] }] }, other.secret)
      ]).then((all) => Promise.all(all.map(async (r) => ({ status: r.status, body: (await r.text()).replaceAll(id, "<id>") }))))
    expect(await answers(created.id)).toEqual(await answers(missing))
    expect((await answers(missing)).map((a) => a.status)).toEqual([404, 404, 404, 400])
  })
})
