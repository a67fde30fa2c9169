import { describe, expect, it } from "@effect/vitest"
import { refusalDrainBytes } from "../../src/Http/RefusalDrain.ts"
import { rawPost, requestHead, sendThenRead } from "../support/RawHttp.ts"
import { useGateway } from "../support/UseGateway.ts"

/**
 * A refusal answered while the body is still arriving reaches a client that writes its whole
 * body before it reads (Python's `http.client`, `requests`): the server reads the rest first
 * instead of closing on it, which would reset the connection and lose the answer.
 */
describe("refusals reach clients that send the whole body before reading", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      server: { body_limit_mb: 1, body_limits: { embeddings_mb: 1 } },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [
        { id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] },
        { id: "embed-test", kind: "embedding", deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
      ]
    })
  })
  // 24 MiB of JSON whitespace: over the 1 MiB caps, and more than loopback's socket buffers
  // hold, so a server that closes on it resets the connection before the client reads.
  const body = new Uint8Array(24 * 1024 * 1024).fill(0x20)
  const head = (path: string, authorization: string, length: number, connection = "keep-alive") =>
    requestHead([`POST ${path} HTTP/1.1`, "host: gateway", `authorization: ${authorization}`, "content-type: application/json", `content-length: ${length}`, `connection: ${connection}`])

  it("a 401 from the headers, with a large body behind it", async () => {
    const answer = await sendThenRead(gw.url, head("/v1/chat/completions", "Bearer sk-not-a-key", body.length), body)
    expect(answer).toMatchObject({ _tag: "Answered", status: 401 })
    if (answer._tag === "Answered") expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "invalid_api_key" } })
  })

  it("a 413 from a declared length over the route's cap names the cap", async () => {
    const answer = await sendThenRead(gw.url, head("/v1/embeddings", gw.auth().authorization!, body.length), body)
    expect(answer).toMatchObject({ _tag: "Answered", status: 413 })
    if (answer._tag === "Answered") expect(JSON.parse(answer.body).error.message).toContain("server.body_limits.embeddings_mb")
  })

  it("a 413 found mid-body, on a body without a declared length", async () => {
    // No declared length gives the cap away: the chat route counts the bytes as they come.
    const chunked = requestHead(["POST /v1/chat/completions HTTP/1.1", "host: gateway", `authorization: ${gw.auth().authorization}`, "content-type: application/json", "transfer-encoding: chunked"])
    const frames = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")])
    const answer = await sendThenRead(gw.url, chunked, frames)
    expect(answer).toMatchObject({ _tag: "Answered", status: 413 })
    if (answer._tag === "Answered") expect(JSON.parse(answer.body).error.message).toContain("server.body_limit_mb")
  })

  it("a body declared past the drain bound is not lingered on: refused, and the connection closed", async () => {
    // 1 KiB sent of the declared length, the rest never. `rawPost` returns when the server
    // closes: a server lingering on this body would hold it until the body's stall timeout
    // (30 s), past the test's own timeout.
    const answer = await rawPost(gw.url, "/v1/embeddings", body.subarray(0, 1024), { headers: gw.auth(), declared: refusalDrainBytes + 1 })
    expect(answer.status).toBe(413)
  })
})
