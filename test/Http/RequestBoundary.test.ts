import { describe, expect, it } from "@effect/vitest"
import { servedContentType } from "../../src/Http/FilesRoutes.ts"
import { useGateway } from "../support/UseGateway.ts"

const form = (fields: ReadonlyArray<readonly [string, string]>, file?: { name: string; type: string; body: string }) => {
  const data = new FormData()
  for (const [name, value] of fields) data.append(name, value)
  if (file !== undefined) data.append("file", new Blob([file.body], { type: file.type }), file.name)
  return data
}

/** Issue 42's smaller items at the request boundary, through the real server. */
describe("the request boundary", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      server: { body_limits: { decisions_mb: 1 } },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [{ id: "whisper-test", kind: "transcription", deployments: [{ provider: "openai", model: "whisper-1" }] }]
    }),
    key: { withUser: true }
  })
  const upload = (data: FormData) => fetch(`${gw.url}/v1/files`, { method: "POST", headers: gw.auth(), body: data })

  it("every /v1 route asks for the key first: an unknown tool without one is a 401, with one a 404", async () => {
    const anonymous = await fetch(`${gw.url}/v1/tools/no-such-tool`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    expect(anonymous.status).toBe(401)
    expect(await anonymous.text()).not.toContain("no-such-tool")
    const known = await gw.postJson("/v1/tools/no-such-tool", {})
    expect(known.status).toBe(404)
    expect(((await known.json()) as { error: { code: string } }).error.code).toBe("tool_not_found")
  })

  it("multipart fields named __proto__ or constructor are ordinary fields, never a 500", async () => {
    const file = { name: "notes.txt", type: "text/plain", body: "hello" }
    const files = await upload(form([["purpose", "user_data"], ["__proto__", "x"], ["constructor", "y"]], file))
    expect(files.status).toBe(200)
    const audio = await fetch(`${gw.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: gw.auth(),
      body: form([["model", "whisper-test"], ["__proto__", "x"], ["constructor", "y"]], { name: "a.wav", type: "audio/wav", body: "RIFF" })
    })
    expect(audio.status).toBeGreaterThanOrEqual(400)
    expect(audio.status).toBeLessThan(500)
  })

  it("a stored file is downloaded as an attachment, never sniffed, and never as a page of the gateway's origin", async () => {
    const created = (await (await upload(form([["purpose", "user_data"]], { name: "page.html", type: "text/html", body: "<script>alert(1)</script>" }))).json()) as { id: string }
    const res = await fetch(`${gw.url}/v1/files/${created.id}/content`, { headers: gw.auth() })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/octet-stream")
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/)
    expect(res.headers.get("content-security-policy")).toContain("sandbox")
    expect(await res.text()).toBe("<script>alert(1)</script>")
  })

  it("stored types: markup and scripts become bytes, the rest keep their type", () => {
    for (const active of ["text/html", "TEXT/HTML; charset=utf-8", "image/svg+xml", "application/xhtml+xml", "text/javascript", "application/rss+xml", "text/xml", "", "bad type"]) {
      expect(servedContentType(active), active).toBe("application/octet-stream")
    }
    expect(servedContentType("application/pdf")).toBe("application/pdf")
    expect(servedContentType("text/plain; charset=utf-8")).toBe("text/plain; charset=utf-8")
    expect(servedContentType("text/plain; charset=\"x\r\ny\"")).toBe("text/plain")
  })

  it("a route's own cap, from its config key: a decisions body over 1 MiB is a 413 naming it", async () => {
    const res = await gw.postJson("/v1/decisions", { model: "m", prompt: "x".repeat(1024 * 1024) })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      "The request body is larger than the 1 MiB limit of /v1/decisions (set by server.body_limits.decisions_mb)."
    )
  })
})
