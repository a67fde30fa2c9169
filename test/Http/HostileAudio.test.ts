import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { openAiTranscription } from "../support/AudioUpstreams.ts"
import { mp3WithTagFrames } from "../support/HostileFixtures.ts"
import { expectBounded, type HostileGateway, startHostileGateway } from "../support/HostileHarness.ts"

/**
 * Hostile audio for transcription through the HTTP server of a gateway process, with /healthz
 * probed every 50 ms. Probing a file (its format, its duration, whether it was cut off) walks all
 * of it. On the main thread, an MP3 whose ID3 tag holds 500,000 frames held the event loop for
 * 1.2 s of CPU in one turn and kept /healthz waiting 8 s (a 2-core machine under load); in an
 * extraction worker the longest turn measured 14 ms.
 */
let gw: HostileGateway

beforeAll(async () => {
  gw = await startHostileGateway({
    config: () => ({
      models: [
        {
          id: "whisper-1",
          kind: "transcription",
          deployments: [{ provider: "openai", model: "whisper-1" }],
          capabilities: { response_formats: ["json", "verbose_json"], timestamp_granularities: ["segment"] }
        }
      ]
    })
  })
  gw.upstream.always(openAiTranscription)
}, 120_000)

afterAll(async () => {
  await gw?.stop()
})

const transcribe = (bytes: Uint8Array, filename: string) => {
  const form = new FormData()
  form.append("model", "whisper-1")
  form.append("response_format", "verbose_json")
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "audio/mpeg" }), filename)
  return gw.request("/v1/audio/transcriptions", { method: "POST", body: form })
}

describe("hostile audio through the HTTP server, with /healthz probed every 50 ms", { timeout: 180_000 }, () => {
  it("an MP3 behind an ID3 tag of 500,000 frames is probed off the event loop", async () => {
    const bytes = mp3WithTagFrames(500_000)
    const measured = await gw.measure(async () => {
      const res = await transcribe(bytes, "tagged.mp3")
      return { status: res.status, body: (await res.json()) as { readonly duration?: number; readonly error?: { readonly message: string; readonly param: string | null } } }
    })
    expectBounded(measured, "ID3 tag of 500,000 frames", { peakRssMb: 1_200 })
    // Measured past its tag (the fixture's 4.1 s), or refused naming the worker's bound it passed.
    if (measured.value.status === 200) {
      expect(measured.value.body.duration).toBeCloseTo(4.1, 0)
    } else {
      expect(measured.value.status, JSON.stringify(measured.value.body)).toBe(400)
      expect(measured.value.body.error).toMatchObject({ param: "file", message: expect.stringMatching(/files\.extraction\.(timeout_ms|max_memory_mb)/) })
    }
  })

  it("afterwards, an ordinary MP3 is measured and transcribed", async () => {
    const res = await transcribe(mp3WithTagFrames(1), "speech.mp3")
    expect(res.status, await res.clone().text()).toBe(200)
    expect(((await res.json()) as { readonly duration: number }).duration).toBeCloseTo(4.1, 0)
  })
})
