import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ModelConfig, ProviderConfig } from "../../../src/Domain/GatewayConfig.ts"
import type { MeasuredAudio, TranscriptionRequest } from "../../../src/Domain/Transcription.ts"
import { makeGeminiTranscriptionProvider } from "../../../src/Providers/Gemini/GeminiTranscriptionAdapter.ts"
import { fixture, fixtureBytes, geminiTranscription, spoken } from "../../support/AudioUpstreams.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { fixturesDir } from "../../support/Fixtures.ts"

describe("Gemini transcription through the Files API", () => {
  const upstream = new FakeUpstream()
  beforeAll(() => upstream.start())
  afterAll(() => upstream.stop())

  const entry = fixture("audio/speech.flac")
  const audio: MeasuredAudio = {
    path: NodePath.join(fixturesDir, entry.path),
    bytes: entry.size_bytes,
    filename: "speech.flac",
    format: "flac",
    durationSeconds: entry.duration_seconds!
  }
  const request: TranscriptionRequest = { task: "transcribe", model: "gemini-stt", responseFormat: "json", granularities: [] }
  const model = Schema.decodeUnknownSync(ModelConfig)({ id: "gemini-stt", kind: "transcription", deployments: [{ provider: "gemini", model: "gemini-2.5-flash" }] })

  const run = (options: { readonly inlineLimitBytes: number }) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function*() {
          const config = Schema.decodeUnknownSync(ProviderConfig)({ id: "gemini", kind: "gemini", base_url: `${upstream.url}/v1beta`, api_key: "g-key" })
          const provider = yield* makeGeminiTranscriptionProvider(config, { ...options, pollMs: 1 })
          return yield* provider.transcribe(request, audio, { upstreamModel: "gemini-2.5-flash", model, ask: { format: "json", granularities: [] } })
        })
      )
    )

  it("uploads a file above the inline limit (resumable), waits while it processes, refers to it, and deletes it", async () => {
    upstream.reset()
    upstream.always((req) => {
      if (req.method === "POST" && req.url === "/upload/v1beta/files") {
        return { kind: "json", status: 200, body: {}, headers: { "x-goog-upload-url": `${upstream.url}/upload/v1beta/files?upload_id=u1` } }
      }
      if (req.url === "/upload/v1beta/files?upload_id=u1") {
        return { kind: "json", status: 200, body: { file: { name: "files/abc", uri: `${upstream.url}/v1beta/files/abc`, mimeType: "audio/flac", state: "PROCESSING" } } }
      }
      if (req.method === "GET") return { kind: "json", status: 200, body: { name: "files/abc", uri: `${upstream.url}/v1beta/files/abc`, state: "ACTIVE" } }
      if (req.method === "DELETE") return { kind: "json", status: 200, body: {} }
      return geminiTranscription(req)
    })
    const transcript = await run({ inlineLimitBytes: 1000 })
    expect(transcript).toMatchObject({ _tag: "Structured", text: spoken, language: "en" })
    const [start, bytes, poll, generate, remove] = upstream.requests
    expect(start!.headers).toMatchObject({
      "x-goog-api-key": "g-key",
      "x-goog-upload-protocol": "resumable",
      "x-goog-upload-command": "start",
      "x-goog-upload-header-content-length": String(entry.size_bytes),
      "x-goog-upload-header-content-type": "audio/flac"
    })
    expect(bytes!.headers).toMatchObject({ "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" })
    expect(bytes!.headers["x-goog-api-key"]).toBeUndefined()
    expect(bytes!.bytes.equals(fixtureBytes(entry))).toBe(true)
    expect(poll).toMatchObject({ method: "GET", url: "/v1beta/files/abc" })
    expect(generate!.url).toBe("/v1beta/models/gemini-2.5-flash:generateContent")
    expect((generate!.body as any).contents[0].parts[0]).toEqual({ fileData: { mimeType: "audio/flac", fileUri: `${upstream.url}/v1beta/files/abc` } })
    expect(remove).toMatchObject({ method: "DELETE", url: "/v1beta/files/abc" })
  })

  it("sends a file within the limit inline, base64 encoded from disk", async () => {
    upstream.reset()
    upstream.always(geminiTranscription)
    await run({ inlineLimitBytes: 10_000_000 })
    expect(upstream.requests).toHaveLength(1)
    const part = (upstream.requests[0]!.body as any).contents[0].parts[0]
    expect(part.inlineData.mimeType).toBe("audio/flac")
    expect(Buffer.from(part.inlineData.data, "base64").equals(fixtureBytes(entry))).toBe(true)
    expect(Number(upstream.requests[0]!.headers["content-length"])).toBe(upstream.requests[0]!.bytes.length)
  })

  it("a refused answer is an upstream error, not a transcript", async () => {
    upstream.reset()
    upstream.always({ kind: "json", status: 200, body: { candidates: [{ finishReason: "SAFETY", content: { parts: [] } }] } })
    const failure = await run({ inlineLimitBytes: 10_000_000 }).catch((e: unknown) => e)
    expect(String(failure)).toContain("SAFETY")
  })
})
