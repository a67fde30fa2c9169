import { writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { connect } from "node:net"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { runAdminCli } from "../../support/AdminCliRun.ts"
import { type FakeUpstream, startFakeUpstream } from "../../support/FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess } from "../../support/GatewayProcess.ts"
import { openAiTextFrames } from "../../support/OpenAiFixtures.ts"
import { parseSse } from "../../support/SseClient.ts"
import { makeTestStorage, type TestStorage } from "../../support/TestDatabase.ts"

const graceSeconds = 3

interface Answer {
  readonly sentAt: number
  readonly endedAt: number
  readonly status?: number
  readonly connection?: string | undefined
  readonly retryAfter?: string | undefined
  readonly body?: string
  /** The client's error, when no answer came. */
  readonly error?: string
}

/** One request on `agent`'s connection, its whole answer read. */
const send = (url: string, agent: Agent, secret: string, body: unknown, onData?: (text: string) => void): Promise<Answer> =>
  new Promise((resolve) => {
    const sentAt = Date.now()
    const payload = JSON.stringify(body)
    const req = request(`${url}/v1/chat/completions`, {
      method: "POST",
      agent,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (piece: string) => {
        text += piece
        onData?.(text)
      })
      res.on("end", () =>
        resolve({
          sentAt,
          endedAt: Date.now(),
          status: res.statusCode!,
          connection: res.headers["connection"],
          retryAfter: res.headers["retry-after"] as string | undefined,
          body: text
        }))
      res.on("error", (error: NodeJS.ErrnoException) => resolve({ sentAt, endedAt: Date.now(), error: error.code ?? error.message }))
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ sentAt, endedAt: Date.now(), error: error.code ?? error.message }))
    req.end(payload)
  })

/**
 * SIGTERM to a real gateway process while clients keep their connections busy: the shutdown
 * drains. Streams in flight run to the grace and end with the frame saying so; each kept-alive
 * connection gets one more answer, which closes it (`Connection: close`), instead of serving new
 * streams for the whole grace; a new connection is refused; no client is left with a reset
 * connection and no answer; the process exits 0.
 */
describe("fault matrix: SIGTERM drains the server", () => {
  let storage: TestStorage
  let upstream: FakeUpstream
  let gateway: GatewayProcess | undefined
  let secret = ""

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startFakeUpstream()
    // "hold" streams never finish on their own; every other stream is whole, at once.
    upstream.always((recorded) => {
      const body = recorded.body as { messages: Array<{ content: string }> }
      return body.messages[0]!.content === "hold"
        ? { kind: "sse", frames: openAiTextFrames(["partial answer"]).slice(0, 2), hangAfter: true }
        : { kind: "sse", frames: openAiTextFrames(["Hel", "lo"]) }
    })
    const configFile = NodePath.join(storage.dataDir, "gateway.yaml")
    writeFileSync(
      configFile,
      [
        `server: { shutdown_grace_seconds: ${graceSeconds}, keepalive_seconds: 30 }`,
        "providers:",
        `  - { id: openai, kind: openai, base_url: "${upstream.url}/v1", api_key: sk-drain-upstream }`,
        "models:",
        "  - { id: gpt-test, kind: chat, deployments: [{ provider: openai, model: gpt-4o-mini }] }"
      ].join("\n")
    )
    gateway = await startGatewayProcess({ storage, configFile, env: { ACCESS_LOG: "json" } })
    const created = await runAdminCli(["keys", "create", "--new-project", "drain", "--json"], {
      DATA_DIR: storage.dataDir,
      ...(storage.databaseUrl === undefined ? {} : { DATABASE_URL: Redacted.value(storage.databaseUrl) })
    })
    secret = (JSON.parse(created.stdout) as { secret: string }).secret
  }, 90_000)
  afterAll(async () => {
    await gateway?.stop("SIGKILL")
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("serves only what was in flight, closes each kept-alive connection with its next answer, refuses new ones, resets none", async () => {
    const url = gateway!.url
    const stream = (content: string) => ({ model: "gpt-test", messages: [{ role: "user", content }], stream: true })

    // Two streams in flight when the signal comes, each on its own connection.
    const heldAgents = [0, 1].map(() => new Agent({ keepAlive: true, maxSockets: 1 }))
    const held: Array<Answer> = []
    let started = 0
    const startedAll = new Promise<void>((resolve) => {
      for (const agent of heldAgents) {
        let seen = false
        void send(url, agent, secret, stream("hold"), (text) => {
          if (seen || !text.includes("partial answer")) return
          seen = true
          if (++started === heldAgents.length) resolve()
        }).then((answer) => held.push(answer))
      }
    })
    await startedAll

    // Four clients sending streams back to back, each on one kept-alive connection, until an answer fails.
    const loopAgents = [0, 1, 2, 3].map(() => new Agent({ keepAlive: true, maxSockets: 1 }))
    const loops = loopAgents.map(async (agent) => {
      const answers: Array<Answer> = []
      for (;;) {
        const answer = await send(url, agent, secret, stream("hi"))
        answers.push(answer)
        if (answer.error !== undefined) return answers
      }
    })
    while (upstream.requests.length < 2 + 4 * 3) await new Promise((r) => setTimeout(r, 20))

    const signalledAt = Date.now()
    const exited = gateway!.stop("SIGTERM")
    const answered = await Promise.all(loops)

    // A new connection once the server drains is refused.
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1")
      socket.on("connect", () => {
        socket.destroy()
        resolve("connected")
      })
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    expect(refused).toBe("ECONNREFUSED")

    for (const answers of answered) {
      const last = answers.at(-1)!
      const closing = answers.at(-2)!
      // The loop ended on a new connection the server refused, not on a reset one.
      expect(last.error).toBe("ECONNREFUSED")
      // The answer before it told the client to close its connection: a 503 for a request that
      // came after the signal, or the last stream of the ones in flight.
      expect(closing.connection).toBe("close")
      if (closing.status === 503) {
        expect(JSON.parse(closing.body!)).toMatchObject({ error: { type: "upstream_error", code: "shutting_down" } })
        expect(closing.retryAfter).toBe("1")
      } else {
        expect(closing.status).toBe(200)
        expect(parseSse(closing.body!).done).toBe(true)
      }
      // Every other answer was a whole stream, and no connection was kept busy during the grace.
      for (const answer of answers.slice(0, -2)) expect([answer.status, parseSse(answer.body!).done]).toEqual([200, true])
      expect(closing.endedAt - signalledAt).toBeLessThan(graceSeconds * 1000 - 1000)
    }

    expect(await exited).toBe(0)
    // The streams in flight ran to the grace and ended with the frame saying why, then [DONE].
    expect(held).toHaveLength(2)
    for (const answer of held) {
      expect(answer.status).toBe(200)
      expect(answer.endedAt - signalledAt).toBeGreaterThanOrEqual(graceSeconds * 1000 - 500)
      const sse = parseSse(answer.body!)
      expect(sse.chunks.at(-1)).toEqual({ error: { message: expect.stringContaining("stopped"), type: "stream_error" } })
      expect(sse.done).toBe(true)
    }
    // The requests the drain refused itself never reached a route, and still have their access-log line.
    const refusedAnswers = answered.flat().filter((answer) => answer.status === 503).length
    const accessLines = gateway!.output().split("\n").filter((line) => line.includes('"log":"access"')).map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(accessLines.filter((line) => line["status"] === 503 && line["route"] === "/v1/chat/completions")).toHaveLength(refusedAnswers)
    for (const agent of [...heldAgents, ...loopAgents]) agent.destroy()
  }, 60_000)
})
