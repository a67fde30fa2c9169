import { beforeEach, describe, expect, it } from "@effect/vitest"
import {
  audioFixtures,
  audioForm,
  audioGatewayConfig,
  badFixtures,
  durationMatches,
  expectedAudioError,
  fixture,
  fixtureBytes,
  fixtureName,
  geminiInlineAudio,
  geminiSrt,
  geminiTranscription,
  openAiTranscription,
  spoken,
  uploadedForm,
  whisperSrt,
  whisperVtt
} from "../support/AudioUpstreams.ts"
import { validateAgainst } from "../support/OpenApiValidator.ts"
import { useGateway } from "../support/UseGateway.ts"

const codes = { corrupt: "file_corrupt", unsupported: "file_unsupported", empty: "file_empty", mismatch: "file_type_mismatch" } as Record<string, string>

describe("POST /v1/audio/transcriptions and /v1/audio/translations", () => {
  const gw = useGateway({ upstreams: ["openai", "groq", "gemini"], config: (u) => audioGatewayConfig(u) })
  const { openai, groq, gemini } = gw.upstreams

  beforeEach(() => {
    openai.always(openAiTranscription)
    groq.always(openAiTranscription)
    gemini.always(geminiTranscription)
  })

  const post = (path: string, form: FormData, secret?: string) =>
    fetch(`${gw.url}${path}`, { method: "POST", headers: gw.auth(secret), body: form })
  const transcribe = (entryOrFile: { name: string; bytes: Uint8Array } | undefined, fields: Record<string, string | ReadonlyArray<string>>) =>
    post("/v1/audio/transcriptions", audioForm(entryOrFile, fields))
  const upload = (path: string) => {
    const entry = fixture(path)
    return { name: fixtureName(entry), bytes: fixtureBytes(entry) }
  }

  describe("every audio fixture", () => {
    for (const entry of audioFixtures) {
      it(`${entry.path}: OpenAI gets the bytes unchanged; verbose_json carries the measured duration`, async () => {
        const res = await transcribe(upload(entry.path), { model: "whisper-1", response_format: "verbose_json" })
        expect(res.status).toBe(200)
        expect(res.headers.get("content-type")).toBe("application/json")
        const body = (await res.json()) as { duration: number; text: string; task: string }
        expect(durationMatches(entry, body.duration)).toBe(true)
        expect(body).toMatchObject({ task: "transcribe", language: "english", text: spoken })
        expect(openai.requests).toHaveLength(1)
        const sent = await uploadedForm(openai.requests[0]!)
        expect(sent.file!.bytes.equals(fixtureBytes(entry))).toBe(true)
        expect(sent.fields).toMatchObject({ model: ["whisper-1"], response_format: ["verbose_json"] })
        expect(openai.requests[0]!.headers["authorization"]).toBe("Bearer sk-up")
      })

      it(`${entry.path}: Gemini gets the bytes inline, base64, and the same duration`, async () => {
        const res = await transcribe(upload(entry.path), { model: "gemini-stt", response_format: "verbose_json" })
        expect(res.status).toBe(200)
        const body = (await res.json()) as { duration: number; segments: Array<unknown> }
        expect(durationMatches(entry, body.duration)).toBe(true)
        expect(body.segments).toHaveLength(2)
        const inline = geminiInlineAudio(gemini.requests[0]!)
        expect(inline!.bytes.equals(fixtureBytes(entry))).toBe(true)
        expect(gemini.requests[0]!.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent")
      })
    }
  })

  describe("every bad fixture", () => {
    for (const entry of badFixtures) {
      it(`${entry.path}: 400 ${codes[expectedAudioError(entry)]}, nothing sent upstream`, async () => {
        const res = await transcribe(upload(entry.path), { model: "whisper-1" })
        expect(res.status).toBe(400)
        const body = (await res.json()) as { error: { code: string; param: string; type: string; message: string } }
        expect(body.error).toMatchObject({ type: "invalid_request_error", param: "file", code: codes[expectedAudioError(entry)] })
        expect(body.error.message).toContain(fixtureName(entry))
        expect(openai.requests).toHaveLength(0)
      })
    }
  })

  describe("response formats", () => {
    const wav = () => upload("audio/speech.wav")
    const cases: ReadonlyArray<readonly [string, string, string, (body: string) => void]> = [
      ["whisper-1", "json", "application/json", (b) => expect(JSON.parse(b)).toEqual({ text: spoken, usage: { type: "duration", seconds: 3 } })],
      ["whisper-1", "text", "text/plain; charset=utf-8", (b) => expect(b).toBe(`${spoken}\n`)],
      ["whisper-1", "srt", "application/x-subrip; charset=utf-8", (b) => expect(b).toBe(whisperSrt)],
      ["whisper-1", "vtt", "text/vtt; charset=utf-8", (b) => expect(b).toBe(whisperVtt)],
      ["gpt-4o-transcribe", "json", "application/json", (b) => expect(JSON.parse(b).text).toBe(spoken)],
      ["gpt-4o-transcribe", "text", "text/plain; charset=utf-8", (b) => expect(b).toBe(`${spoken}\n`)],
      ["groq-whisper", "srt", "application/x-subrip; charset=utf-8", (b) => expect(b).toBe(whisperSrt)],
      ["groq-whisper", "vtt", "text/vtt; charset=utf-8", (b) => expect(b).toBe(whisperVtt)],
      ["gemini-stt", "json", "application/json", (b) => expect(JSON.parse(b)).toEqual({ text: spoken, usage: { type: "duration", seconds: 3 } })],
      ["gemini-stt", "text", "text/plain; charset=utf-8", (b) => expect(b).toBe(`${spoken}\n`)],
      ["gemini-stt", "srt", "application/x-subrip; charset=utf-8", (b) => expect(b).toBe(geminiSrt)],
      ["gemini-stt", "vtt", "text/vtt; charset=utf-8", (b) => expect(b).toContain("WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nQuartz falcon,\n\n")]
    ]
    for (const [model, format, contentType, check] of cases) {
      it(`${model} ${format}: ${contentType}`, async () => {
        const res = await transcribe(wav(), { model, response_format: format })
        expect(res.status).toBe(200)
        expect(res.headers.get("content-type")).toBe(contentType)
        check(await res.text())
      })
    }

    it("asks an upstream for what it can give and builds the rest: srt from Groq's verbose_json segments", async () => {
      await transcribe(wav(), { model: "groq-whisper", response_format: "srt" })
      const sent = await uploadedForm(groq.requests[0]!)
      expect(sent.fields["response_format"]).toEqual(["verbose_json"])
      expect(groq.requests[0]!.url).toBe("/openai/v1/audio/transcriptions")
    })

    it("passes whisper-1's own srt through", async () => {
      await transcribe(wav(), { model: "whisper-1", response_format: "srt" })
      expect((await uploadedForm(openai.requests[0]!)).fields["response_format"]).toEqual(["srt"])
    })

    it("verbose_json with word timestamps, valid against the OpenAI schema", async () => {
      const res = await transcribe(wav(), { model: "whisper-1", response_format: "verbose_json", "timestamp_granularities[]": ["word", "segment"] })
      const body = (await res.json()) as any
      expect(body.words).toHaveLength(2)
      expect(body.segments[0]).toMatchObject({ id: 0, seek: 0, start: 0, end: 1.4, text: " Quartz falcon," })
      expect(body.duration).toBe(3)
      expect(validateAgainst("CreateTranscriptionResponseVerboseJson", body)).toEqual([])
      expect((await uploadedForm(openai.requests[0]!)).fields["timestamp_granularities[]"]).toEqual(["word", "segment"])
    })

    it("a json-only model cannot give subtitles or verbose_json: 400 naming response_format", async () => {
      for (const format of ["srt", "vtt", "verbose_json"]) {
        const res = await transcribe(wav(), { model: "gpt-4o-transcribe", response_format: format })
        expect(res.status).toBe(400)
        expect(((await res.json()) as any).error).toMatchObject({ param: "response_format", code: "unsupported_response_format" })
      }
      expect(openai.requests).toHaveLength(0)
    })

    it("word timestamps from a model without them: 400 naming timestamp_granularities", async () => {
      const res = await transcribe(wav(), { model: "gemini-stt", response_format: "verbose_json", "timestamp_granularities[]": "word" })
      expect(res.status).toBe(400)
      expect(((await res.json()) as any).error.param).toBe("timestamp_granularities")
    })

    it("translations always give English; Gemini is told to translate", async () => {
      const res = await post("/v1/audio/translations", audioForm(upload("audio/speech-es.mpeg"), { model: "gemini-stt", response_format: "verbose_json" }))
      expect(res.status).toBe(200)
      const body = (await res.json()) as any
      expect(body).toMatchObject({ task: "translate", language: "english" })
      expect(body.usage).toBeUndefined()
      const prompt = JSON.stringify((gemini.requests[0]!.body as any).contents[0].parts[1])
      expect(prompt).toContain("Translate the speech in this audio into English")
      const viaOpenAi = await post("/v1/audio/translations", audioForm(upload("audio/speech.mp3"), { model: "whisper-1", response_format: "json" }))
      expect(await viaOpenAi.json()).toEqual({ text: spoken })
      expect(openai.requests[0]!.url).toBe("/v1/audio/translations")
      const refused = await post("/v1/audio/translations", audioForm(upload("audio/speech.mp3"), { model: "gpt-4o-transcribe" }))
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as any).error.param).toBe("model")
    })
  })

  describe("fields", () => {
    const wav = () => upload("audio/speech.wav")
    const expect400 = async (res: Response, param: string, status = 400) => {
      expect(res.status).toBe(status)
      const body = (await res.json()) as { error: { param: string | null; message: string } }
      expect(body.error.param).toBe(param)
      return body.error
    }

    it("language: ISO-639-1 only, sent upstream as given", async () => {
      await expect400(await transcribe(wav(), { model: "whisper-1", language: "xx" }), "language")
      await expect400(await transcribe(wav(), { model: "whisper-1", language: "english" }), "language")
      const res = await transcribe(wav(), { model: "whisper-1", language: "de", prompt: "Quartz", temperature: "0.2" })
      expect(res.status).toBe(200)
      expect((await uploadedForm(openai.requests[0]!)).fields).toMatchObject({ language: ["de"], prompt: ["Quartz"], temperature: ["0.2"] })
    })

    it("temperature 0..1, granularities only with verbose_json, a known response_format", async () => {
      await expect400(await transcribe(wav(), { model: "whisper-1", temperature: "1.5" }), "temperature")
      await expect400(await transcribe(wav(), { model: "whisper-1", "timestamp_granularities[]": "segment" }), "timestamp_granularities")
      await expect400(await transcribe(wav(), { model: "whisper-1", response_format: "csv" }), "response_format")
      await expect400(await transcribe(wav(), { model: "whisper-1", colour: "blue" }), "colour")
      expect(openai.requests).toHaveLength(0)
    })

    it("model: 404 for an unknown id, 400 for another kind, 400 when missing", async () => {
      await expect400(await transcribe(wav(), { model: "nope" }), "model", 404)
      await expect400(await transcribe(wav(), { model: "gpt-chat" }), "model", 400)
      await expect400(await transcribe(wav(), {}), "model")
    })

    it("file: required (or url), exactly one", async () => {
      await expect400(await transcribe(undefined, { model: "whisper-1" }), "file")
      const two = audioForm(wav(), { model: "whisper-1" })
      two.append("file", new Blob([new Uint8Array(fixtureBytes("audio/speech.wav"))]), "again.wav")
      await expect400(await post("/v1/audio/transcriptions", two), "file")
    })

    it("a JSON body is refused with 415 naming its content type", async () => {
      const res = await gw.postJson("/v1/audio/transcriptions", { model: "whisper-1", file: "x" })
      expect(res.status).toBe(415)
      expect(((await res.json()) as any).error.message).toContain("'application/json'")
    })

    it("needs the audio scope", async () => {
      const key = await gw.createKey({ scopes: ["chat"] })
      const res = await post("/v1/audio/transcriptions", audioForm(wav(), { model: "whisper-1" }), key.secret)
      expect(res.status).toBe(403)
    })
  })

  describe("routing", () => {
    it("falls back only to models that can give the format: srt from Gemini when OpenAI fails", async () => {
      openai.always({ kind: "json", status: 503, body: { error: { message: "overloaded" } } })
      const res = await transcribe(upload("audio/speech.flac"), { model: "whisper-1", response_format: "srt" })
      expect(res.status).toBe(200)
      expect(res.headers.get("x-gateway-provider")).toBe("gemini")
      expect(await res.text()).toBe(geminiSrt)
    })

    it("an upstream failure with no way out is a 502/503 in the error shape", async () => {
      openai.always({ kind: "json", status: 500, body: { error: { message: "boom" } } })
      const res = await transcribe(upload("audio/speech.flac"), { model: "gpt-4o-transcribe" })
      expect(res.status).toBe(502)
      expect(((await res.json()) as any).error.type).toBe("upstream_error")
    })
  })

  it("GET /v1/models shows what each transcription model can serve", async () => {
    const res = await fetch(`${gw.url}/v1/models/gemini-stt`, { headers: gw.auth() })
    expect(await res.json()).toMatchObject({
      kind: "transcription",
      transcription: { response_formats: ["json", "text", "srt", "verbose_json", "vtt"], timestamp_granularities: ["segment"], translation: true },
      pricing: { per_audio_second: 0.00005 }
    })
    const json = (await (await fetch(`${gw.url}/v1/models/gpt-4o-transcribe`, { headers: gw.auth() })).json()) as any
    expect(json.transcription).toEqual({ response_formats: ["json", "text"], timestamp_granularities: [], translation: false })
  })
})
