import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createOpenAI } from "@ai-sdk/openai"
import { experimental_transcribe as transcribe } from "ai"
import { toFile } from "openai"
import { UsageLedger } from "../../src/Services/Usage/UsageLedger.ts"
import {
  audioForm,
  audioGatewayConfig,
  fixture,
  fixtureBytes,
  geminiTranscription,
  openAiTranscription,
  spoken,
  uploadedForm,
  whisperSrt,
  whisperVtt
} from "../support/AudioUpstreams.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

describe("speech to text through clients", () => {
  const gw = useGateway({ upstreams: ["openai", "groq", "gemini"], config: (u) => audioGatewayConfig(u) })
  const { openai, groq, gemini } = gw.upstreams

  beforeEach(() => {
    openai.always(openAiTranscription)
    groq.always(openAiTranscription)
    gemini.always(geminiTranscription)
  })

  const wav = () => toFile(fixtureBytes("audio/speech.wav"), "speech.wav", { type: "audio/wav" })

  describe("the official openai SDK", () => {
    it("audio.transcriptions.create in every response format", async () => {
      const client = openAiClient(gw.url, gw.key.secret)
      const json = await client.audio.transcriptions.create({ file: await wav(), model: "whisper-1" })
      expect(json.text).toBe(spoken)
      const text = await client.audio.transcriptions.create({ file: await wav(), model: "whisper-1", response_format: "text" })
      expect(text).toBe(`${spoken}\n`)
      const srt = await client.audio.transcriptions.create({ file: await wav(), model: "whisper-1", response_format: "srt" })
      expect(srt).toBe(whisperSrt)
      const vtt = await client.audio.transcriptions.create({ file: await wav(), model: "whisper-1", response_format: "vtt" })
      expect(vtt).toBe(whisperVtt)
      const verbose = await client.audio.transcriptions.create({
        file: await wav(),
        model: "whisper-1",
        response_format: "verbose_json",
        timestamp_granularities: ["word", "segment"],
        language: "en",
        temperature: 0
      })
      expect(verbose).toMatchObject({ language: "english", duration: 3, text: spoken })
      expect(verbose.words).toHaveLength(2)
      expect(verbose.segments).toHaveLength(2)
      const sent = await uploadedForm(openai.requests.at(-1)!)
      expect(sent.fields).toMatchObject({ language: ["en"], "timestamp_granularities[]": ["word", "segment"] })
      expect(sent.file!.bytes.equals(fixtureBytes("audio/speech.wav"))).toBe(true)
    })

    it("builds what the upstream cannot give, for the SDK too: srt and verbose_json from Gemini", async () => {
      const client = openAiClient(gw.url, gw.key.secret)
      const srt = await client.audio.transcriptions.create({ file: await wav(), model: "gemini-stt", response_format: "srt" })
      expect(srt).toContain("00:00:01,500 --> 00:00:02,750")
      const verbose = await client.audio.transcriptions.create({ file: await wav(), model: "gemini-stt", response_format: "verbose_json" })
      expect(verbose.segments?.map((s) => s.text)).toEqual(["Quartz falcon,", "seven three one nine."])
    })

    it("audio.translations.create", async () => {
      const client = openAiClient(gw.url, gw.key.secret)
      const file = await toFile(fixtureBytes("audio/speech-es.mpeg"), "speech-es.mpeg")
      const json = await client.audio.translations.create({ file, model: "whisper-1" })
      expect(json.text).toBe(spoken)
      const srt = await client.audio.translations.create({ file: await toFile(fixtureBytes("audio/speech.ogg"), "speech.ogg"), model: "groq-whisper", response_format: "srt" })
      expect(srt).toBe(whisperSrt)
      expect(groq.requests[0]!.url).toBe("/openai/v1/audio/translations")
      expect((await uploadedForm(groq.requests[0]!)).fields["response_format"]).toEqual(["verbose_json"])
      const verbose = await client.audio.translations.create({ file: await wav(), model: "gemini-stt", response_format: "verbose_json" })
      expect(verbose).toMatchObject({ language: "english", duration: 3 })
    })

    it("a 400 surfaces as the SDK's BadRequestError with the field", async () => {
      const client = openAiClient(gw.url, gw.key.secret)
      const error = await client.audio.transcriptions.create({ file: await wav(), model: "whisper-1", language: "zz" }).catch((e: unknown) => e)
      expect(error).toMatchObject({ status: 400, param: "language" })
    })
  })

  it("the Vercel AI SDK's transcribe (verbose_json with segment timestamps), with the gateway's measured duration", async () => {
    const provider = createOpenAI({ apiKey: gw.key.secret, baseURL: `${gw.url}/v1` })
    const result = await transcribe({ model: provider.transcription("whisper-1"), audio: new Uint8Array(fixtureBytes("audio/speech.flac")), maxRetries: 0 })
    expect(result.text).toBe(spoken)
    expect(result.segments.map((s) => s.text)).toEqual([" Quartz falcon,", " seven three one nine."])
    expect(result.durationInSeconds).toBe(fixture("audio/speech.flac").duration_seconds)
    expect(result.language).toBe("en")
    const sent = await uploadedForm(openai.requests[0]!)
    expect(sent.fields).toMatchObject({ response_format: ["verbose_json"], "timestamp_granularities[]": ["segment"] })
    expect(sent.file!.bytes.equals(fixtureBytes("audio/speech.flac"))).toBe(true)
  })

  describe("url", () => {
    let server: Server
    let base = ""
    beforeAll(async () => {
      server = createServer((req, res) => {
        const name = (req.url ?? "").slice(1)
        res.writeHead(200, { "content-type": "audio/ogg" })
        res.end(fixtureBytes(`audio/${name}`))
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it("transcriptions fetch the audio through the guarded fetcher and send its bytes", async () => {
      const res = await fetch(`${gw.url}/v1/audio/transcriptions`, {
        method: "POST",
        headers: gw.auth(),
        body: audioForm(undefined, { model: "whisper-1", url: `${base}/speech.ogg`, response_format: "verbose_json" })
      })
      expect(res.status).toBe(200)
      expect(((await res.json()) as { duration: number }).duration).toBeCloseTo(fixture("audio/speech.ogg").duration_seconds!, 1)
      const sent = await uploadedForm(openai.requests[0]!)
      expect(sent.file!.name).toBe("speech.ogg")
      expect(sent.file!.bytes.equals(fixtureBytes("audio/speech.ogg"))).toBe(true)
    })

    it("refuses url on translations, url with a file, and an unreachable url, each naming url", async () => {
      const translation = await fetch(`${gw.url}/v1/audio/translations`, {
        method: "POST",
        headers: gw.auth(),
        body: audioForm(undefined, { model: "whisper-1", url: `${base}/speech.ogg` })
      })
      expect(translation.status).toBe(400)
      expect(((await translation.json()) as any).error.param).toBe("url")
      const both = await fetch(`${gw.url}/v1/audio/transcriptions`, {
        method: "POST",
        headers: gw.auth(),
        body: audioForm({ name: "speech.wav", bytes: fixtureBytes("audio/speech.wav") }, { model: "whisper-1", url: `${base}/speech.ogg` })
      })
      expect(both.status).toBe(400)
      expect(((await both.json()) as any).error.param).toBe("url")
      const nowhere = await fetch(`${gw.url}/v1/audio/transcriptions`, {
        method: "POST",
        headers: gw.auth(),
        body: audioForm(undefined, { model: "whisper-1", url: "http://127.0.0.1:1/none.wav" })
      })
      expect(nowhere.status).toBe(400)
      expect(((await nowhere.json()) as any).error.param).toBe("url")
      expect(openai.requests).toHaveLength(0)
    })
  })

  it("records one usage event: the measured seconds, rounded up, as units, priced per second", async () => {
    const fresh = await gw.createKey()
    const entry = fixture("audio/speech.mp3")
    const res = await fetch(`${gw.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: gw.auth(fresh.secret),
      body: audioForm({ name: "speech.mp3", bytes: fixtureBytes(entry) }, { model: "whisper-1" })
    })
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    // The event is written when the request's scope closes, just after the answer is sent.
    const read = () =>
      gw.runtime.runPromise(
        Effect.gen(function*() {
          yield* (yield* UsageLedger).flush
          const sql = yield* SqlClient.SqlClient
          return yield* sql<Record<string, unknown>>`SELECT d.name AS endpoint, e.status, e.units, e.cost_nano_usd, m.name AS used_model
            FROM usage_events e JOIN api_keys k ON k.seq = e.key_seq JOIN usage_endpoints d ON d.id = e.endpoint
            LEFT JOIN usage_labels m ON m.id = e.used_model WHERE k.id = ${fresh.keyId}`
        })
      )
    let rows = await read()
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
      rows = await read()
    }
    const seconds = Math.ceil(entry.duration_seconds!)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ endpoint: "audio", status: 200, used_model: "whisper-1" })
    expect(Number(rows[0]!["units"])).toBe(seconds)
    // $0.0001 per second
    expect(Number(rows[0]!["cost_nano_usd"])).toBe(seconds * 100_000)
  })
})
