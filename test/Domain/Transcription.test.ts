import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { classifyAudio } from "../../src/Domain/AudioFormat.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"
import { GatewayError } from "../../src/Domain/GatewayError.ts"
import { subtitleTime, toSrt, toVtt } from "../../src/Domain/Subtitles.ts"
import { billedSeconds, transcriptionCostNanoUsd } from "../../src/Domain/TranscriptionCost.ts"
import { planTranscription, servableFormats } from "../../src/Domain/TranscriptionGate.ts"
import { decodeTranscriptionFields } from "../../src/Domain/TranscriptionRequestDecoder.ts"
import type { TranscriptionRequest } from "../../src/Domain/Transcription.ts"

const model = (capabilities: Record<string, unknown>) =>
  Schema.decodeUnknownSync(ModelConfig)({ id: "m", kind: "transcription", deployments: [{ provider: "p", model: "u" }], capabilities })
const request = (over: Partial<TranscriptionRequest> = {}): TranscriptionRequest => ({
  task: "transcribe",
  model: "m",
  responseFormat: "json",
  granularities: [],
  ...over
})
const paramOf = (value: unknown) => (value instanceof GatewayError && "param" in value.reason ? value.reason.param : undefined)

describe("decodeTranscriptionFields", () => {
  it("reads every field of spec 4.2, repeated granularities included", () => {
    expect(
      decodeTranscriptionFields("transcribe", {
        model: ["whisper-1"],
        language: ["de"],
        prompt: ["Names: Quartz"],
        response_format: ["verbose_json"],
        temperature: ["0.3"],
        "timestamp_granularities[]": ["word", "segment"]
      })
    ).toEqual({
      task: "transcribe",
      model: "whisper-1",
      language: "de",
      prompt: "Names: Quartz",
      responseFormat: "verbose_json",
      temperature: 0.3,
      granularities: ["word", "segment"]
    })
  })

  it("names the field of every violation", () => {
    const cases: ReadonlyArray<readonly [Record<string, Array<string>>, string]> = [
      [{}, "model"],
      [{ model: ["m"], language: ["eng"] }, "language"],
      [{ model: ["m"], language: ["EN"] }, "language"],
      [{ model: ["m"], temperature: ["-0.1"] }, "temperature"],
      [{ model: ["m"], temperature: ["warm"] }, "temperature"],
      [{ model: ["m"], response_format: ["xml"] }, "response_format"],
      [{ model: ["m"], "timestamp_granularities[]": ["word"] }, "timestamp_granularities"],
      [{ model: ["m"], response_format: ["verbose_json"], "timestamp_granularities[]": ["sentence"] }, "timestamp_granularities[]"],
      [{ model: ["m", "n"] }, "model"],
      [{ model: ["m"], stream: ["true"] }, "stream"],
      [{ model: ["m"], speed: ["2"] }, "speed"]
    ]
    for (const [fields, param] of cases) expect(paramOf(decodeTranscriptionFields("transcribe", fields))).toBe(param)
  })

  it("translations take no language and no url", () => {
    expect(paramOf(decodeTranscriptionFields("translate", { model: ["m"], language: ["de"] }))).toBe("language")
    expect(paramOf(decodeTranscriptionFields("translate", { model: ["m"], url: ["https://x/a.mp3"] }))).toBe("url")
  })
})

describe("planTranscription", () => {
  const whisper = model({ response_formats: ["json", "text", "srt", "verbose_json", "vtt"], timestamp_granularities: ["segment", "word"], translation: true })
  const jsonOnly = model({ response_formats: ["json"] })
  const segmented = model({ response_formats: ["json", "text", "verbose_json"], timestamp_granularities: ["segment"], translation: true })

  it("asks for a format the upstream has as it is", () => {
    expect(planTranscription(request({ responseFormat: "srt" }), whisper)).toEqual({ format: "srt", granularities: [] })
    expect(planTranscription(request({ responseFormat: "verbose_json", granularities: ["word"] }), whisper)).toEqual({
      format: "verbose_json",
      granularities: ["word"]
    })
  })

  it("builds text from json, and subtitles from verbose_json segments", () => {
    expect(planTranscription(request({ responseFormat: "text" }), jsonOnly)).toEqual({ format: "json", granularities: [] })
    expect(planTranscription(request({ responseFormat: "vtt" }), segmented)).toEqual({ format: "verbose_json", granularities: [] })
  })

  it("refuses what cannot be built honestly, naming the field", () => {
    expect(paramOf(planTranscription(request({ responseFormat: "srt" }), jsonOnly))).toBe("response_format")
    expect(paramOf(planTranscription(request({ responseFormat: "verbose_json", granularities: ["word"] }), segmented))).toBe("timestamp_granularities")
    expect(paramOf(planTranscription(request({ task: "translate" }), jsonOnly))).toBe("model")
  })

  it("servableFormats: what the catalogue shows", () => {
    expect(servableFormats(jsonOnly)).toEqual(["json", "text"])
    expect(servableFormats(segmented)).toEqual(["json", "text", "srt", "verbose_json", "vtt"])
  })
})

describe("subtitles", () => {
  const segments = [
    { id: 0, start: 0, end: 1.5, text: " Hello there. " },
    { id: 1, start: 3661.0456, end: 3662, text: "Second\n\nline --> arrow" }
  ]

  it("SRT numbers cues from 1 with comma milliseconds", () => {
    expect(toSrt(segments)).toBe("1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n01:01:01,046 --> 01:01:02,000\nSecond\nline --> arrow\n\n")
  })

  it("VTT has its header, full-stop milliseconds and no arrow inside a cue", () => {
    expect(toVtt(segments)).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there.\n\n01:01:01.046 --> 01:01:02.000\nSecond\nline -> arrow\n\n")
    expect(toVtt([])).toBe("WEBVTT\n\n")
  })

  const Seconds = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 400_000 }))
  const Segments = Schema.Array(Schema.Struct({ id: Schema.Int, start: Seconds, end: Seconds, text: Schema.String }))
  const parse = (time: string) => {
    const [h, m, s, ms] = time.split(/[:,.]/).map(Number)
    return h! * 3600 + m! * 60 + s! + ms! / 1000
  }

  it.prop("every segment is one cue, its times to the millisecond, never ending before it starts", { segments: Segments }, ({ segments }) => {
    for (const [text, pattern] of [
      [toSrt(segments), /^(\d{2,}:\d{2}:\d{2},\d{3}) --> (\d{2,}:\d{2}:\d{2},\d{3})$/gm],
      [toVtt(segments), /^(\d{2,}:\d{2}:\d{2}\.\d{3}) --> (\d{2,}:\d{2}:\d{2}\.\d{3})$/gm]
    ] as const) {
      const cues = [...text.matchAll(pattern)]
      if (cues.length !== segments.length) return false
      for (const [i, cue] of cues.entries()) {
        const start = parse(cue[1]!)
        if (Math.abs(start - segments[i]!.start) > 0.0005 || parse(cue[2]!) < start) return false
      }
    }
    return true
  })

  it("never a cue that ends before it starts, nor a negative time", () => {
    expect(toSrt([{ id: 0, start: 2, end: 1, text: "x" }])).toContain("00:00:02,000 --> 00:00:02,000")
    expect(subtitleTime(-3, ",")).toBe("00:00:00,000")
  })
})

describe("billing", () => {
  it("bills whole seconds rounded up, at least one, ignoring float noise", () => {
    expect([billedSeconds(3), billedSeconds(3.0000000001), billedSeconds(3.001), billedSeconds(0.2), billedSeconds(0)]).toEqual([3, 3, 4, 1, 1])
  })

  it("the worst case is seconds times per_audio_second plus per_request, in nano-dollars", () => {
    expect(transcriptionCostNanoUsd({ per_audio_second: 0.0001 }, 4.104)).toBe(500_000)
    expect(transcriptionCostNanoUsd({ per_audio_second: 0.0001, per_request: 0.001 }, 1)).toBe(1_100_000)
    expect(transcriptionCostNanoUsd({}, 10)).toBe(0)
  })
})

describe("classifyAudio", () => {
  it("trusts the bytes, uses the name as a hint", () => {
    expect(classifyAudio({ filename: "a.mpga", size: 10, sniffed: "mp3" })).toEqual({ _tag: "Accepted", format: "mp3" })
    expect(classifyAudio({ filename: "a.m4a", size: 10, sniffed: "mp4" })).toEqual({ _tag: "Accepted", format: "mp4" })
    expect(classifyAudio({ filename: "blob", size: 10, sniffed: "webm" })).toEqual({ _tag: "Accepted", format: "webm" })
    expect(classifyAudio({ filename: "a.webm", size: 10, sniffed: "mp3" })).toMatchObject({ kind: "mismatch" })
    expect(classifyAudio({ filename: "a.flac", size: 10, sniffed: undefined })).toMatchObject({ kind: "corrupt" })
    expect(classifyAudio({ filename: "a.mov", size: 10, sniffed: "mov" })).toMatchObject({ kind: "unsupported" })
    expect(classifyAudio({ filename: "a.wav", size: 0, sniffed: undefined })).toMatchObject({ kind: "empty" })
  })
})
