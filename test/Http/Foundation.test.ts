import { describe, expect, it } from "@effect/vitest"
import { request as httpRequest } from "node:http"
import { Effect } from "effect"
import { ApiKeys } from "../../src/Services/Accounts/ApiKeys.ts"
import { useGateway } from "../support/UseGateway.ts"

const envelope = (type: string) => ({
  error: { message: expect.any(String), type, param: expect.toSatisfy((v: unknown) => v === null || typeof v === "string"), code: expect.toSatisfy((v: unknown) => v === null || typeof v === "string") }
})

describe("errors, auth and catalogue over HTTP", () => {
  const gw = useGateway({
    config: {
      server: { body_limit_mb: 1 },
      providers: [{ id: "openai", kind: "openai", base_url: "http://127.0.0.1:9/v1", api_key: "sk-provider-secret" }],
      models: [
        {
          id: "gpt-test",
          kind: "chat",
          deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
          capabilities: { vision: true, tools: true, context_length: 128000 },
          pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 }
        },
        {
          id: "org/img-model",
          kind: "image",
          deployments: [{ provider: "openai", model: "gpt-image-1" }],
          image: { aspect_ratios: ["1:1", "3:2"], qualities: ["low", "high"] }
        }
      ]
    }
  })
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers })
  const post = (path: string, body: string, headers: Record<string, string>) => gw.postJson(path, body, { headers })

  it("lists the catalogue without secrets or upstream URLs", async () => {
    const res = await get("/v1/models", gw.auth())
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).not.toContain("sk-provider-secret")
    expect(text).not.toContain("127.0.0.1")
    const body = JSON.parse(text)
    expect(body.object).toBe("list")
    const chat = body.data.find((m: any) => m.id === "gpt-test")
    expect(chat).toMatchObject({
      object: "model",
      owned_by: "openai",
      kind: "chat",
      context_length: 128000,
      capabilities: { vision: true, audio_input: false, video_input: false, tools: true },
      pricing: { currency: "USD", input_per_mtok: 0.15, output_per_mtok: 0.6 }
    })
    expect(typeof chat.created).toBe("number")
    const image = body.data.find((m: any) => m.id === "org/img-model")
    expect(image.architecture).toMatchObject({ image_aspect_ratios: ["1:1", "3:2"], image_qualities: ["low", "high"], image_resolutions: [] })
  })

  it("retrieves one model, slashes included, and 404s an unknown one naming it", async () => {
    const auth = gw.auth()
    expect(((await (await get("/v1/models/org/img-model", auth)).json()) as any).id).toBe("org/img-model")
    expect(((await (await get("/v1/models/org%2Fimg-model", auth)).json()) as any).id).toBe("org/img-model")
    const res = await get("/v1/models/nope-1", auth)
    expect(res.status).toBe(404)
    const body = (await res.json()) as any
    expect(body).toEqual(envelope("not_found_error"))
    expect(body.error.message).toContain("nope-1")
  })

  it("401 without a key, with a malformed header, an unknown, revoked or expired key", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "missing_api_key"],
      [{ authorization: "Basic abc" }, "invalid_authorization_header"],
      [{ authorization: "Bearer" }, "invalid_authorization_header"],
      [{ authorization: "Bearer sk-not-a-real-key" }, "invalid_api_key"]
    ]
    for (const [headers, code] of cases) {
      const res = await get("/v1/models", headers)
      expect(res.status).toBe(401)
      const body = (await res.json()) as any
      expect(body).toEqual(envelope("authentication_error"))
      expect(body.error.code).toBe(code)
    }
    const revoked = await gw.createKey()
    await gw.runtime.runPromise(Effect.flatMap(ApiKeys, (keys) => keys.revoke(revoked.keyId)))
    const revokedRes = await get("/v1/models", { authorization: `Bearer ${revoked.secret}` })
    expect(revokedRes.status).toBe(401)
    expect(((await revokedRes.json()) as any).error.code).toBe("api_key_revoked")

    const soon = await gw.createKey({ expiresAt: Math.floor(Date.now() / 1000) + 2 })
    expect((await get("/v1/models", { authorization: `Bearer ${soon.secret}` })).status).toBe(200)
    await new Promise((r) => setTimeout(r, 2100))
    const expired = await get("/v1/models", { authorization: `Bearer ${soon.secret}` })
    expect(expired.status).toBe(401)
    expect(((await expired.json()) as any).error.code).toBe("api_key_expired")
  })

  it("403 for a key without the endpoint's scope", async () => {
    const chatOnly = await gw.createKey({ scopes: ["chat"] })
    const res = await get("/v1/models", { authorization: `Bearer ${chatOnly.secret}` })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual(envelope("permission_error"))
  })

  it("404 for an unknown route and 405 for a known path with another method", async () => {
    const missing = await get("/v1/nothing-here")
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual(envelope("not_found_error"))
    const wrong = await fetch(`${gw.url}/v1/chat/completions`, { method: "GET" })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get("allow")).toBe("POST")
    expect(await wrong.json()).toEqual(envelope("invalid_request_error"))
  })

  it("400 for malformed JSON and a non-object body, 415 for the wrong content type", async () => {
    const bad = await post("/v1/chat/completions", "{not json", { "content-type": "application/json" })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual(envelope("invalid_request_error"))
    const array = await post("/v1/chat/completions", "[1,2]", { "content-type": "application/json" })
    expect(array.status).toBe(400)
    expect(((await array.json()) as any).error.message).toContain("JSON object")
    const text = await post("/v1/chat/completions", "{}", { "content-type": "text/plain" })
    expect(text.status).toBe(415)
    expect(await text.json()).toEqual(envelope("invalid_request_error"))
  })

  it("413 for a body over the limit, declared or streamed", async () => {
    const big = JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "x".repeat(1_100_000) }] })
    const declared = await post("/v1/chat/completions", big, { "content-type": "application/json" })
    expect(declared.status).toBe(413)
    expect(await declared.json()).toEqual(envelope("invalid_request_error"))
    const chunked = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...gw.auth(), "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(chunked.status).toBe(413)
  })

  it("reads a body sent in pieces, a body after 100-continue and a body with a BOM", async () => {
    const body = JSON.stringify({ model: "piecewise-model", messages: [{ role: "user", content: "h\u00e9llo ".repeat(5000) }] })
    const bytes = Buffer.from(body)
    // Each answer names the model, so the whole body was read and parsed.
    const send = (headers: Record<string, string>, write: (req: ReturnType<typeof httpRequest>) => void) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const url = new URL(gw.url)
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: "/v1/chat/completions", method: "POST", headers: { ...gw.auth(), "content-type": "application/json", ...headers } },
          (res) => {
            let text = ""
            res.setEncoding("utf8")
            res.on("data", (piece: string) => (text += piece))
            res.on("end", () => resolve({ status: res.statusCode!, text }))
          }
        )
        req.on("error", reject)
        write(req)
      })
    // Cut inside a multi-byte character, so the decoder must see the pieces joined.
    const cut = bytes.indexOf(Buffer.from("\u00e9")) + 1
    const pieces = await send({ "transfer-encoding": "chunked" }, (req) => {
      req.write(bytes.subarray(0, cut))
      setTimeout(() => req.end(bytes.subarray(cut)), 20)
    })
    const continued = await send({ expect: "100-continue", "content-length": String(bytes.length) }, (req) => {
      req.on("continue", () => req.end(bytes))
      req.flushHeaders()
    })
    const bom = await send({ "content-length": String(bytes.length + 3) }, (req) => req.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])))
    for (const res of [pieces, continued, bom]) {
      expect(res.status).toBe(404)
      expect(JSON.parse(res.text).error.message).toContain("piecewise-model")
    }
  })

  it("404 naming an unknown model on chat", async () => {
    const res = await post("/v1/chat/completions", JSON.stringify({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }), {
      "content-type": "application/json"
    })
    expect(res.status).toBe(404)
    const body = (await res.json()) as any
    expect(body).toEqual(envelope("not_found_error"))
    expect(body.error.message).toContain("no-such-model")
    expect(body.error.param).toBe("model")
  })

  it("puts a request id on every response", async () => {
    for (const res of [await get("/healthz"), await get("/v1/models"), await get("/nowhere")]) {
      expect(res.headers.get("x-request-id")).toMatch(/^req_/)
    }
  })

  it("reports health and readiness", async () => {
    expect((await (await get("/healthz")).json()) as any).toEqual({ status: "ok" })
    const ready = await get("/readyz")
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: "ready" })
  })
})
