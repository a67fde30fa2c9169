import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import * as NodePath from "node:path"
import { afterAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { audioGatewayConfig, fixtureBytes, openAiTranscription } from "../support/AudioUpstreams.ts"
import { useGateway } from "../support/UseGateway.ts"

const MiB = 1024 * 1024

// A collection on demand, so the RSS measured is what stays alive and not the garbage the socket
// reads leave behind between two collections (which would grow with any upload, held or not).
setFlagsFromString("--expose-gc")
const collect = runInNewContext("gc") as () => void

interface Sent {
  readonly status: number
  readonly body: string
  /** Bytes of the upload written before the answer came. */
  readonly written: number
  /** Highest RSS of this process seen while the upload ran, over the RSS before it. */
  readonly rssGrowth: number
}

/**
 * POSTs a multipart upload of `total` bytes without ever holding it: a real WAV fixture's
 * bytes, then zero padding from one reused 64 KiB buffer, written with back-pressure. The
 * gateway runs in this process, so the RSS sampled here covers both sides.
 */
const streamUpload = (url: string, auth: string, total: number, declareLength: boolean): Promise<Sent> =>
  new Promise((resolve, reject) => {
    const boundary = "audio-limit-test"
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\nContent-Type: audio/wav\r\n\r\n`
    )
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
    const audio = fixtureBytes("audio/speech.wav")
    const padding = Buffer.alloc(64 * 1024)
    const fileBytes = total - head.length - tail.length
    collect()
    const baseline = process.memoryUsage().rss
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 10)
    let written = 0
    let answered = false
    const req = request(`${url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: {
        authorization: auth,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        ...(declareLength ? { "content-length": String(total) } : { "transfer-encoding": "chunked" })
      }
    })
    req.on("response", (res) => {
      answered = true
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        clearInterval(sampler)
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), written, rssGrowth: peak - baseline })
        req.destroy()
      })
    })
    // The gateway may close the connection while the rest of the upload is still being written.
    req.on("error", (error) => (answered ? undefined : reject(error)))
    const write = (chunk: Buffer) =>
      new Promise<void>((done) => {
        written += chunk.length
        if (req.write(chunk)) done()
        else req.once("drain", done)
      })
    void (async () => {
      await write(head)
      await write(audio)
      let left = fileBytes - audio.length
      // With a declared length, a little is sent and then nothing: the answer must not wait for the rest.
      const stopAt = declareLength ? MiB : Number.POSITIVE_INFINITY
      while (left > 0 && !answered && !req.destroyed && written < stopAt) {
        const piece = left >= padding.length ? padding : padding.subarray(0, left)
        await write(piece)
        left -= piece.length
        if (written % (2 * MiB) < piece.length) collect()
      }
      if (!answered && !req.destroyed && !declareLength) req.end(tail)
    })()
  })

/** Whether `done` holds within 5 s: the request's scope (and its temporary file) closes after the answer is sent. */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10))
  return done()
}

describe("the 25 MB audio limit", () => {
  const tempDir = mkdtempSync(NodePath.join(tmpdir(), "gateway-audio-limit-"))
  const gw = useGateway({ upstreams: ["openai", "groq", "gemini"], config: (u) => audioGatewayConfig(u, { temp_dir: tempDir }) })
  const { openai } = gw.upstreams
  afterAll(() => rmSync(tempDir, { recursive: true, force: true }))
  beforeEach(() => {
    openai.always(openAiTranscription)
  })

  it("a 26 MB upload streamed in chunks gets 413 as it passes 25 MB: nothing upstream, no temporary file left, RSS well below its size", async () => {
    const total = 26 * MiB
    const sent = await streamUpload(gw.url, gw.auth().authorization, total, false)
    expect(sent.status).toBe(413)
    expect(JSON.parse(sent.body).error).toMatchObject({ type: "invalid_request_error", param: "file" })
    expect(JSON.parse(sent.body).error.message).toContain("25 MB")
    expect(openai.requests).toHaveLength(0)
    // Held whole, the upload alone would add 26 MiB; streamed, the process grows by far less.
    expect(sent.rssGrowth).toBeLessThan(total / 2)
    expect(await until(() => readdirSync(tempDir).length === 0)).toBe(true)
  })

  it("a declared Content-Length over the limit is refused before the body is read", async () => {
    // Past the file limit plus the 1 MiB allowed for the other fields.
    const sent = await streamUpload(gw.url, gw.auth().authorization, 27 * MiB, true)
    expect(sent.status).toBe(413)
    expect(sent.written).toBeLessThan(2 * MiB)
    expect(openai.requests).toHaveLength(0)
  })

  it("a client that goes away mid-upload leaves no temporary file behind", async () => {
    const req = request(`${gw.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { ...gw.auth(), "content-type": "multipart/form-data; boundary=b", "transfer-encoding": "chunked" }
    })
    req.on("error", () => undefined)
    req.write(`--b\r\nContent-Disposition: form-data; name="file"; filename="cut.wav"\r\nContent-Type: audio/wav\r\n\r\n`)
    req.write(fixtureBytes("audio/speech.wav"))
    expect(await until(() => readdirSync(tempDir).length === 1)).toBe(true)
    req.destroy()
    expect(await until(() => readdirSync(tempDir).length === 0)).toBe(true)
    expect(openai.requests).toHaveLength(0)
  })

  it("a file within the limit goes through, and its temporary file is gone once the answer is sent", async () => {
    const form = new FormData()
    form.append("model", "whisper-1")
    form.append("file", new Blob([new Uint8Array(fixtureBytes("audio/speech.wav"))]), "speech.wav")
    const res = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: "POST", headers: gw.auth(), body: form })
    expect(res.status).toBe(200)
    await res.text()
    expect(await until(() => readdirSync(tempDir).length === 0)).toBe(true)
    expect(openai.requests).toHaveLength(1)
  })
})
