import { writeFileSync } from "node:fs"
import * as Http from "node:http"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminCall } from "../support/AdminClient.ts"
import { type FakeUpstream, startFakeUpstream } from "../support/FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess } from "../support/GatewayProcess.ts"
import { loopProbeEnv, watchGateway } from "../support/LoopProbe.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { makeTestStorage, type TestStorage } from "../support/TestDatabase.ts"

const adminToken = "hostile-requests-admin-token-0123456789abcdef"
const mib = 1024 * 1024

interface Answer {
  readonly status: number
  readonly error: { readonly message: string; readonly code: string | null; readonly param: string | null }
  /** How many body bytes had been written when the answer came. */
  readonly sentBeforeAnswer: number
}

/**
 * POSTs `body` in 64 KiB chunks over a plain connection: with its Content-Length, or chunked. The
 * answer may come before the body is sent (a refusal from the headers or mid-body): sending then
 * stops, and `sentBeforeAnswer` says how far it got. `declared` claims a larger Content-Length
 * than the bytes sent (the rest never comes).
 */
const post = (url: string, path: string, body: Buffer, options: { headers?: Record<string, string>; chunked?: boolean; declared?: number } = {}) =>
  new Promise<Answer>((resolve, reject) => {
    let sent = 0
    let answered = false
    const headers: Record<string, string | number> = { "content-type": "application/json", ...options.headers }
    if (options.chunked !== true) headers["content-length"] = options.declared ?? body.length
    const request = Http.request(`${url}${path}`, { method: "POST", headers, agent: false }, (response) => {
      answered = true
      const sentBeforeAnswer = sent
      let text = ""
      response.on("data", (chunk: Buffer) => (text += chunk.toString()))
      response.on("end", () => {
        request.destroy()
        const parsed = JSON.parse(text || "{}") as { error?: Answer["error"] }
        resolve({
          status: response.statusCode ?? 0,
          error: parsed.error ?? { message: "", code: null, param: null },
          sentBeforeAnswer
        })
      })
    })
    request.on("error", (error) => (answered ? undefined : reject(error)))
    const write = () => {
      while (!answered && sent < body.length) {
        const chunk = body.subarray(sent, sent + 64 * 1024)
        sent += chunk.length
        if (!request.write(chunk)) return void request.once("drain", write)
      }
      // A declared length larger than the body: the rest never comes, the answer must not wait for it.
      if (!answered && options.declared === undefined) request.end()
    }
    write()
  })

const deep = (depth: number) => `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`
const manyKeys = (keys: number) =>
  `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"logit_bias":{${Array.from({ length: keys }, (_, i) => `"${i}":1`).join(",")}}}`
const newlines = (bytes: number) => `{"model":"gpt-test","messages":[{"role":"user","content":"${"\\n".repeat(bytes / 2)}"}]}`
const manyItems = (count: number) => `{"model":"gpt-test","messages":[${"1,".repeat(count - 1)}1]}`
const manyMessages = (count: number) => `{"model":"gpt-test","messages":[${Array.from({ length: count }, () => '{"role":"user","content":"a"}').join(",")}]}`
/** `arrays` arrays of `items` numbers each: every array within its limit, the whole body not. */
const manyNumbers = (arrays: number, items: number) =>
  `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"metadata":{"n":[${Array.from({ length: arrays }, () => `[${"7,".repeat(items - 1)}7]`).join(",")}]}}`

/**
 * Issue 42: hostile request bodies against the gateway as `npm start` runs it, while `/healthz` is
 * probed every 50 ms and a probe inside the gateway measures how much CPU any one turn of its
 * event loop takes (robust on a loaded machine, where wall-clock waits are not). Each hostile
 * request gets a 4xx naming its limit and the setting that sets it; none holds the loop for
 * 100 ms; RSS stays bounded; an ordinary request succeeds afterwards.
 */
describe("hostile request bodies", () => {
  let storage: TestStorage
  let upstream: FakeUpstream
  let gateway: GatewayProcess
  let secret = ""
  let limitedSecret = ""
  const chat = (body: string | Buffer, options: Parameters<typeof post>[3] = {}, key = secret) =>
    post(gateway.url, "/v1/chat/completions", Buffer.isBuffer(body) ? body : Buffer.from(body), {
      ...options,
      headers: { authorization: `Bearer ${key}`, ...options.headers }
    })

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startFakeUpstream()
    const configFile = NodePath.join(storage.dataDir, "gateway.yaml")
    writeFileSync(
      configFile,
      [
        "providers:",
        `  - { id: openai, kind: openai, base_url: "${upstream.url}/v1", api_key: sk-hostile-upstream }`,
        "models:",
        "  - { id: gpt-test, kind: chat, deployments: [{ provider: openai, model: gpt-4o-mini }] }",
        "  - { id: embed-test, kind: embedding, deployments: [{ provider: openai, model: text-embedding-3-small }] }"
      ].join("\n")
    )
    gateway = await startGatewayProcess({ storage, configFile, env: { ACCESS_LOG: "off", GATEWAY_ADMIN_TOKEN: adminToken, ...loopProbeEnv } })
    const admin = adminCall(() => gateway.url, adminToken)
    const project = (await admin("POST", "/admin/projects", { body: { name: "hostile" } })).body as { id: string }
    secret = ((await admin("POST", `/admin/projects/${project.id}/keys`, { body: {} })).body as { secret: string }).secret
    const limited = (await admin("POST", `/admin/projects/${project.id}/keys`, { body: {} })).body as { secret: string; key: { id: string } }
    limitedSecret = limited.secret
    expect((await admin("POST", `/admin/projects/${project.id}/rate-limits`, { body: { key_id: limited.key.id, rpm: 1, tpm: null } })).status).toBe(200)
  }, 90_000)
  afterAll(async () => {
    await gateway?.stop("SIGKILL")
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("each gets a 4xx naming its limit, without holding the event loop or the memory", async () => {
    // Built before the watch starts: making 50 MB strings holds this process's loop, not the gateway's.
    const bodies = {
      deep: Buffer.from(deep(10_000)),
      keys: Buffer.from(manyKeys(100_000)),
      newlines: Buffer.from(newlines(50 * mib)),
      items: Buffer.from(manyItems(200_000)),
      messages: Buffer.from(manyMessages(200_000)),
      numbers: Buffer.from(manyNumbers(20, 100_000)),
      signIn: Buffer.from(`{"token":"${"a".repeat(50 * mib)}"}`)
    }
    const watch = await watchGateway(gateway)

    const tooDeep = await chat(bodies.deep)
    expect([tooDeep.status, tooDeep.error.code]).toEqual([400, "json_too_deep"])
    expect(tooDeep.error.message).toContain("server.json_limits.max_depth")

    const keys = await chat(bodies.keys)
    expect([keys.status, keys.error.code, keys.error.param]).toEqual([400, "json_too_many_keys", "logit_bias"])
    expect(keys.error.message).toContain("server.json_limits.max_object_keys")

    // 50 MB of "\n": refused while it is read, once the escapes pass their limit.
    const escapes = await chat(bodies.newlines)
    expect([escapes.status, escapes.error.code]).toEqual([400, "json_too_many_escapes"])
    expect(escapes.error.message).toContain("server.json_limits.max_escapes")
    expect(escapes.sentBeforeAnswer).toBeLessThan(50 * mib)

    const items = await chat(bodies.items)
    expect([items.status, items.error.code, items.error.param]).toEqual([400, "json_too_many_items", "messages"])

    // Within every per-array and per-object limit, but more than JSON.parse may build in one go on
    // the event loop: counted while the body streams in, refused before it is parsed.
    const messages = await chat(bodies.messages)
    expect([messages.status, messages.error.code]).toEqual([400, "json_too_many_containers"])
    expect(messages.error.message).toContain("server.json_limits.max_containers")
    expect(messages.sentBeforeAnswer).toBeLessThan(bodies.messages.length)
    const numbers = await chat(bodies.numbers)
    expect([numbers.status, numbers.error.code]).toEqual([400, "json_too_many_values"])
    expect(numbers.error.message).toContain("server.json_limits.max_values")

    // Each route has its own cap: refused by the declared length before a byte is read, or by
    // the running count of a chunked body.
    const embeddings = await post(gateway.url, "/v1/embeddings", Buffer.alloc(17 * mib, 0x20), { headers: { authorization: `Bearer ${secret}` } })
    expect(embeddings.status).toBe(413)
    expect(embeddings.error.message).toContain("16 MiB limit of /v1/embeddings (set by server.body_limits.embeddings_mb)")
    const chunked = await post(gateway.url, "/v1/tools/scrape", Buffer.alloc(8 * mib, 0x20), { headers: { authorization: `Bearer ${secret}` }, chunked: true })
    expect(chunked.status).toBe(413)
    expect(chunked.error.message).toContain("server.body_limits.tools_mb")

    // The console's sign-in parses a few KB at most, whatever the body claims.
    const signIn = await post(gateway.url, "/console/session", bodies.signIn)
    expect(signIn.status).toBe(413)
    expect(signIn.error.message).toContain("4 KiB limit of POST /console/session")
    const admin = await post(gateway.url, "/admin/projects", Buffer.alloc(mib, 0x20), { headers: { authorization: `Bearer ${adminToken}` } })
    expect(admin.status).toBe(413)

    const report = await watch.stop()
    console.log(`hostile requests: ${JSON.stringify(report)}`)
    expect(report.maxCpuMs).toBeLessThan(100)
    // Bodies are refused while they stream in, never held whole: the process stays under 512 MB
    // (about 200 MB at rest), where one 50 MB body parsed took it past 380 MB before.
    expect(report.maxRssMb).toBeLessThan(512)

    upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "still here" }) })
    const normal = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
    })
    expect(normal.status).toBe(200)
  })

  it("a key over its rate limit is refused from its headers: a 50 MB body is never read", async () => {
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const before = upstream.requests.length
    const first = await chat(`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`, {}, limitedSecret)
    expect(first.status).toBe(200)
    // Headers and 64 KiB of a body declared as 50 MB: the answer comes without the rest.
    const refused = await chat(Buffer.alloc(64 * 1024, 0x20), { declared: 50 * mib }, limitedSecret)
    expect(refused.status).toBe(429)
    expect(refused.error.code).toBe("rate_limit_exceeded")
    expect(refused.sentBeforeAnswer).toBeLessThanOrEqual(64 * 1024)
    expect(upstream.requests).toHaveLength(before + 1)
  })
})
