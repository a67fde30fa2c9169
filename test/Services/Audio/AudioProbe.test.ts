import { describe, expect, it } from "@effect/vitest"
import * as NodePath from "node:path"
import { probeAudio } from "../../../src/Services/Audio/AudioProbe.ts"
import { memorySource } from "../../../src/Services/Audio/ByteSource.ts"
import { MpegFrameWalker } from "../../../src/Services/Audio/MpegAudioFrames.ts"
import { webmTimeline } from "../../../src/Services/Audio/WebmBlocks.ts"
import { audioFixtures, badFixtures, durationMatches, expectedAudioError, fixture, fixtureBytes, fixtureName } from "../../support/AudioUpstreams.ts"
import { fixturesDir } from "../../support/Fixtures.ts"

const pathOf = (entry: { path: string }) => NodePath.join(fixturesDir, entry.path)

describe("probeAudio", () => {
  for (const entry of audioFixtures) {
    it(`${entry.path}: accepted, measured within 0.1 s of the manifest`, async () => {
      const result = await probeAudio(pathOf(entry), fixtureName(entry))
      expect(result._tag).toBe("Measured")
      if (result._tag !== "Measured") return
      expect(durationMatches(entry, result.durationSeconds)).toBe(true)
      expect(result.bytes).toBe(entry.size_bytes)
    })
  }

  for (const entry of badFixtures) {
    it(`${entry.path}: rejected as ${expectedAudioError(entry)}`, async () => {
      const result = await probeAudio(pathOf(entry), fixtureName(entry))
      expect(result).toMatchObject({ _tag: "Rejected", kind: expectedAudioError(entry) })
    })
  }

  it("the name is only a hint: audio with no extension, or a neutral one, is measured from its bytes", async () => {
    const entry = fixture("audio/speech.ogg")
    for (const name of ["recording", "upload.bin"]) {
      const result = await probeAudio(pathOf(entry), name)
      expect(result).toMatchObject({ _tag: "Measured", format: "ogg" })
    }
  })

  it("the MPEG program stream and a streamed WebM: the cases the metadata library does not measure", async () => {
    // The program stream's decoded length (its frames), not its last timestamp.
    const ps = fixture("audio/speech.mpeg")
    const measured = await probeAudio(pathOf(ps), "speech.mpeg")
    expect(measured._tag === "Measured" && Math.abs(measured.durationSeconds - ps.decoded_duration_seconds!)).toBeLessThan(0.01)
    const streamed = fixture("audio/speech-streamed.webm")
    const timeline = await webmTimeline(memorySource(fixtureBytes(streamed)))
    expect(timeline.hasAudio).toBe(true)
    expect(Math.abs(timeline.seconds! - streamed.duration_seconds!)).toBeLessThan(0.1)
  })

  it("the frame walker counts the same frames however the stream is cut into pieces", () => {
    const bytes = fixtureBytes("audio/speech.mpga")
    const whole = new MpegFrameWalker()
    whole.feed(bytes)
    for (const size of [1, 3, 7, 1000]) {
      const pieces = new MpegFrameWalker()
      for (let at = 0; at < bytes.length; at += size) pieces.feed(bytes.subarray(at, at + size))
      expect([pieces.frames, pieces.missing]).toEqual([whole.frames, whole.missing])
    }
    expect(Math.abs(whole.seconds - fixture("audio/speech.mpga").duration_seconds!)).toBeLessThan(0.1)
    const cut = new MpegFrameWalker()
    cut.feed(bytes.subarray(0, bytes.length - 100))
    expect(cut.missing).toBeGreaterThan(0)
  })
})
