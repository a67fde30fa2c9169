/**
 * The probe of one staged audio file, run in an extraction worker (`Extractor.runJob`): the
 * metadata reader and the gateway's own frame walkers go through the whole file, and a hostile
 * one (an ID3 tag of a million frames, millions of tiny MPEG frames) costs seconds of CPU, which
 * must not be spent on the event loop. The worker reads the file from its path; only the verdict
 * crosses back. Erasable TypeScript only: plain Node loads it there.
 */
import { workerJob } from "../Files/Extraction/WorkerJob.ts"
import { probeAudio, type ProbeResult } from "./AudioProbe.ts"

export interface AudioProbeInput {
  /** A file the request staged, readable by every thread of the process. */
  readonly path: string
  readonly filename: string
}

export const run = (input: AudioProbeInput): Promise<ProbeResult> => probeAudio(input.path, input.filename)

export const audioProbeJob = workerJob<AudioProbeInput, ProbeResult>(new URL(import.meta.url), "audio-probe")
