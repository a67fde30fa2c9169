import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { expectBounded, type HostileGateway, startHostileGateway } from "../support/HostileHarness.ts"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { rawPost } from "../support/RawHttp.ts"

const mib = 1024 * 1024

interface Answer {
  readonly status: number
  readonly error: { readonly message: string; readonly code: string | null; readonly param: string | null }
  /** How many body bytes had been written when the answer came. */
  readonly sentBeforeAnswer: number
}

/** A POST over a plain socket (`rawPost`), its error envelope read. */
const post = async (url: string, path: string, body: Buffer, options: Parameters<typeof rawPost>[3] = {}): Promise<Answer> => {
  const answer = await rawPost(url, path, body, options)
  const parsed = JSON.parse(answer.body || "{}") as { error?: Answer["error"] }
  return { status: answer.status, error: parsed.error ?? { message: "", code: null, param: null }, sentBeforeAnswer: answer.sentBeforeAnswer }
}

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
 * Issue 42: hostile request bodies against the gateway as `npm start` runs it (`HostileHarness`):
 * each sent while `/healthz` is probed every 50 ms and the gateway measures how much CPU any one
 * turn of its event loop takes (robust on a loaded machine, where wall-clock waits are not). Each
 * gets a 4xx naming its limit and the setting that sets it, without holding the loop or the
 * memory; an ordinary request succeeds afterwards.
 */
describe("hostile request bodies", { timeout: 180_000 }, () => {
  let gw: HostileGateway
  let limitedSecret = ""
  const chat = (body: string | Buffer, options: Parameters<typeof post>[3] = {}, key = gw.secret) =>
    post(gw.url, "/v1/chat/completions", Buffer.isBuffer(body) ? body : Buffer.from(body), {
      ...options,
      headers: { authorization: `Bearer ${key}`, ...options.headers }
    })
  // Bodies are refused while they stream in, never held whole: the process stays under 512 MB
  // (about 200 MB at rest), where one 50 MB body parsed took it past 380 MB before.
  const measured = async <A>(what: string, run: () => Promise<A>): Promise<A> => {
    const measurement = await gw.measure(run)
    expectBounded(measurement, what, { peakRssMb: 512 })
    return measurement.value
  }

  beforeAll(async () => {
    gw = await startHostileGateway({
      config: () => ({
        models: [
          { id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] },
          { id: "embed-test", kind: "embedding", deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
        ]
      })
    })
    const limited = await gw.admin(`/projects/${gw.projectId}/keys`, {})
    limitedSecret = limited["secret"] as string
    await gw.admin(`/projects/${gw.projectId}/rate-limits`, { key_id: limited["key"].id, rpm: 1, tpm: null })
  }, 120_000)
  afterAll(async () => {
    await gw?.stop()
  })

  it("each gets a 4xx naming its limit, without holding the event loop or the memory", async () => {
    // Built before anything is measured: making 50 MB strings holds this process's loop, not the gateway's.
    const bodies = {
      deep: Buffer.from(deep(10_000)),
      keys: Buffer.from(manyKeys(100_000)),
      newlines: Buffer.from(newlines(50 * mib)),
      items: Buffer.from(manyItems(200_000)),
      messages: Buffer.from(manyMessages(200_000)),
      numbers: Buffer.from(manyNumbers(20, 100_000)),
      signIn: Buffer.from(`{"token":"${"a".repeat(50 * mib)}"}`)
    }

    const tooDeep = await measured("10,000 levels", () => chat(bodies.deep))
    expect([tooDeep.status, tooDeep.error.code]).toEqual([400, "json_too_deep"])
    expect(tooDeep.error.message).toContain("server.json_limits.max_depth")

    const keys = await measured("100,000 keys", () => chat(bodies.keys))
    expect([keys.status, keys.error.code, keys.error.param]).toEqual([400, "json_too_many_keys", "logit_bias"])
    expect(keys.error.message).toContain("server.json_limits.max_object_keys")

    // 50 MB of "\n": refused while it is read, once the escapes pass their limit.
    const escapes = await measured("50 MB of escapes", () => chat(bodies.newlines))
    expect([escapes.status, escapes.error.code]).toEqual([400, "json_too_many_escapes"])
    expect(escapes.error.message).toContain("server.json_limits.max_escapes")
    expect(escapes.sentBeforeAnswer).toBeLessThan(50 * mib)

    const items = await measured("200,000 items", () => chat(bodies.items))
    expect([items.status, items.error.code, items.error.param]).toEqual([400, "json_too_many_items", "messages"])

    // Within every per-array and per-object limit, but more than JSON.parse may build in one go on
    // the event loop: counted while the body streams in, refused before it is parsed.
    const messages = await measured("200,000 messages", () => chat(bodies.messages))
    expect([messages.status, messages.error.code]).toEqual([400, "json_too_many_containers"])
    expect(messages.error.message).toContain("server.json_limits.max_containers")
    const numbers = await measured("2,000,000 numbers", () => chat(bodies.numbers))
    expect([numbers.status, numbers.error.code]).toEqual([400, "json_too_many_values"])
    expect(numbers.error.message).toContain("server.json_limits.max_values")

    // Each route has its own cap: refused by the declared length before a byte is read, or by
    // the running count of a chunked body.
    const embeddings = await measured("17 MiB of embeddings", () =>
      post(gw.url, "/v1/embeddings", Buffer.alloc(17 * mib, 0x20), { headers: { authorization: `Bearer ${gw.secret}` } }))
    expect(embeddings.status).toBe(413)
    expect(embeddings.error.message).toContain("16 MiB limit of /v1/embeddings (set by server.body_limits.embeddings_mb)")
    // 1 MiB and 64 KiB of a chunked body that never ends: refused by the running count, without the rest.
    const chunked = await measured("chunked to a tool, past its cap", () =>
      post(gw.url, "/v1/tools/scrape", Buffer.alloc(8 * mib, 0x20), { headers: { authorization: `Bearer ${gw.secret}` }, chunked: true, stopAfter: mib + 64 * 1024 }))
    expect(chunked.status).toBe(413)
    expect(chunked.error.message).toContain("server.body_limits.tools_mb")

    // The console's sign-in parses a few KB at most, whatever the body claims.
    const signIn = await measured("50 MB sign-in", () => post(gw.url, "/console/session", bodies.signIn))
    expect(signIn.status).toBe(413)
    expect(signIn.error.message).toContain("4 KiB limit of POST /console/session")
    const admin = await measured("1 MiB to the admin API", () =>
      post(gw.url, "/admin/projects", Buffer.alloc(mib, 0x20), { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(admin.status).toBe(413)

    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion({ content: "still here" }) })
    const normal = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
    expect(normal.status).toBe(200)
  })

  it("a key over its rate limit is refused from its headers: a 50 MB body is never read", async () => {
    gw.upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const before = gw.upstream.requests.length
    const first = await chat(`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`, {}, limitedSecret)
    expect(first.status).toBe(200)
    // Headers and 64 KiB of a body declared as 50 MB: the answer comes without the rest.
    const refused = await chat(Buffer.alloc(64 * 1024, 0x20), { declared: 50 * mib }, limitedSecret)
    expect(refused.status).toBe(429)
    expect(refused.error.code).toBe("rate_limit_exceeded")
    expect(refused.sentBeforeAnswer).toBeLessThanOrEqual(64 * 1024)
    expect(gw.upstream.requests).toHaveLength(before + 1)
  })
})
