import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A fast, deterministic fake OpenAI for the benchmark. Every body is built once at start-up,
 * so a request costs the upstream only its HTTP handling. Paths:
 * - `/v1/chat/completions`: a completion, or with `"stream":true` 20 chunks + usage + [DONE],
 *   one write per frame with a turn of the event loop between frames (so they travel apart);
 * - `/v1/responses`: a Responses API response, or with `"stream":true` its typed events (lifecycle,
 *   one message item, 18 text deltas, the done events, `response.completed`), one write per event;
 * - `/v1/embeddings`: one 1,536-dimension embedding;
 * - `/hold/v1/chat/completions`: a stream that sends three chunks, then holds until
 *   `POST /control/release` finishes every held stream normally;
 * - `GET /control/held`: how many streams are being held.
 * Run as a script it listens on loopback (port 0 unless given) and prints `{"port":N}`.
 */

const created = 1741570283
const base = { id: "chatcmpl-bench", object: "chat.completion.chunk", created, model: "gpt-4o-mini-2024-07-18", system_fingerprint: "fp_bench" }
const frame = (value: unknown) => Buffer.from(`data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`, "utf8")
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  frame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })

export const usage = { prompt_tokens: 19, completion_tokens: 18, total_tokens: 37, prompt_tokens_details: { cached_tokens: 0 } }

/** 20 chunk objects: the role, 18 content pieces and the finish; then usage and [DONE]. */
export const streamFrames: ReadonlyArray<Buffer> = [
  chunk({ role: "assistant", content: "", refusal: null }),
  ...Array.from({ length: 18 }, (_, i) => chunk({ content: `word${i} ` })),
  chunk({}, "stop"),
  frame({ ...base, choices: [], usage }),
  frame("[DONE]")
]
const heldFrames = 3

/** A stream of `n` content chunks between the role and the finish (for the per-chunk cost). */
const longFrameSets = new Map<number, ReadonlyArray<Buffer>>()
const longFrames = (n: number): ReadonlyArray<Buffer> => {
  let frames = longFrameSets.get(n)
  if (frames === undefined) {
    frames = [
      chunk({ role: "assistant", content: "", refusal: null }),
      ...Array.from({ length: n }, (_, i) => chunk({ content: `word${i} ` })),
      chunk({}, "stop"),
      frame({ ...base, choices: [], usage }),
      frame("[DONE]")
    ]
    longFrameSets.set(n, frames)
  }
  return frames
}

const completion = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created,
    model: "gpt-4o-mini-2024-07-18",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "Hello there! How can I help you today?", refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop"
      }
    ],
    usage: { ...usage, completion_tokens: 10, total_tokens: 29 },
    service_tier: "default",
    system_fingerprint: "fp_bench"
  }),
  "utf8"
)

// Deterministic values with the spread and precision of a real embedding.
const embedding = Buffer.from(
  JSON.stringify({
    object: "list",
    data: [
      {
        object: "embedding",
        index: 0,
        embedding: Array.from({ length: 1536 }, (_, i) => Math.round(Math.sin(i * 12.9898) * 0.05 * 1e9) / 1e9)
      }
    ],
    model: "text-embedding-3-small",
    usage: { prompt_tokens: 5, total_tokens: 5 }
  }),
  "utf8"
)

// OpenAI's Responses API: the same answer and the same 18 pieces, in its own wire format.
const responseObject = (status: string, output: ReadonlyArray<unknown>, withUsage: boolean) => ({
  id: "resp_bench",
  object: "response",
  created_at: created,
  status,
  model: "gpt-4o-mini-2024-07-18",
  output,
  usage: withUsage ? { input_tokens: 19, input_tokens_details: { cached_tokens: 0 }, output_tokens: 18, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 37 } : null
})
const message = (text: string, status = "completed") => ({ id: "msg_bench", type: "message", status, role: "assistant", content: [{ type: "output_text", text, annotations: [] }] })
const responsesCompletion = Buffer.from(JSON.stringify(responseObject("completed", [message("Hello there! How can I help you today?")], true)), "utf8")
const pieces = Array.from({ length: 18 }, (_, i) => `word${i} `)
const event = (type: string, fields: Record<string, unknown>, sequence: number) =>
  Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence })}\n\n`, "utf8")
const at = { item_id: "msg_bench", output_index: 0, content_index: 0 }
export const responsesFrames: ReadonlyArray<Buffer> = [
  ["response.created", { response: responseObject("in_progress", [], false) }],
  ["response.in_progress", { response: responseObject("in_progress", [], false) }],
  ["response.output_item.added", { output_index: 0, item: { ...message(""), status: "in_progress", content: [] } }],
  ["response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } }],
  ...pieces.map((delta): [string, Record<string, unknown>] => ["response.output_text.delta", { ...at, delta, logprobs: [] }]),
  ["response.output_text.done", { ...at, text: pieces.join(""), logprobs: [] }],
  ["response.content_part.done", { ...at, part: { type: "output_text", text: pieces.join(""), annotations: [] } }],
  ["response.output_item.done", { output_index: 0, item: message(pieces.join("")) }],
  ["response.completed", { response: responseObject("completed", [message(pieces.join(""))], true) }]
].map(([type, fields], i) => event(type as string, fields as Record<string, unknown>, i))

const jsonHeaders = (body: Buffer) => ({ "content-type": "application/json", "content-length": String(body.length) })
const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" }

/** Writes frames from `from` to `to`, one per turn of the event loop. */
const writeFrames = (res: ServerResponse, from: number, to: number, end: boolean, frames = streamFrames) => {
  let i = from
  const next = () => {
    if (res.destroyed) return
    if (i >= to) {
      if (end) res.end()
      return
    }
    res.write(frames[i++]!)
    setImmediate(next)
  }
  next()
}

// The request body is only scanned for `"stream":true`, as a fake need not parse it.
const wantsStream = (body: string) => /"stream"\s*:\s*true/.test(body)

export const startFakeUpstream = (port = 0) => {
  const held = new Set<ServerResponse>()
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = req.url ?? ""
    if (url === "/v1/chat/completions") {
      if (!wantsStream(body)) {
        res.writeHead(200, jsonHeaders(completion)).end(completion)
        return
      }
      res.writeHead(200, sseHeaders)
      writeFrames(res, 0, streamFrames.length, true)
      return
    }
    if (url === "/v1/responses") {
      if (!wantsStream(body)) {
        res.writeHead(200, jsonHeaders(responsesCompletion)).end(responsesCompletion)
        return
      }
      res.writeHead(200, sseHeaders)
      writeFrames(res, 0, responsesFrames.length, true, responsesFrames)
      return
    }
    if (url === "/v1/embeddings") {
      res.writeHead(200, jsonHeaders(embedding)).end(embedding)
      return
    }
    if (url === "/hold/v1/chat/completions") {
      res.writeHead(200, sseHeaders)
      held.add(res)
      res.on("close", () => held.delete(res))
      writeFrames(res, 0, heldFrames, false)
      return
    }
    const long = /^\/long\/(\d+)\/v1\/chat\/completions$/.exec(url)
    if (long !== null) {
      const frames = longFrames(Number(long[1]))
      res.writeHead(200, sseHeaders)
      writeFrames(res, 0, frames.length, true, frames)
      return
    }
    if (url === "/control/release") {
      const count = held.size
      for (const stream of held) writeFrames(stream, heldFrames, streamFrames.length, true)
      held.clear()
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ released: count }))
      return
    }
    if (url === "/control/held") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ held: held.size }))
      return
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}')
  }
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (piece: string) => {
      body += piece
    })
    req.on("end", () => handle(req, res, body))
  })
  server.maxConnections = 100_000
  return new Promise<{ port: number; close: () => void }>((resolve) =>
    server.listen(port, "127.0.0.1", () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      })
    )
  )
}

if (import.meta.main) {
  const { port } = await startFakeUpstream(Number(process.argv[2] ?? 0))
  process.stdout.write(`${JSON.stringify({ port })}\n`)
}
