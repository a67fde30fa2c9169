/**
 * Format detection of a large document in an extraction worker: telling text from binary decodes
 * the whole content (UTF-8, else Windows-1252) and scans it for control characters, about half a
 * second for 40 MB, which must not happen on the event loop. Small documents are detected in place.
 * Erasable TypeScript only: plain Node loads it in the worker.
 */
import { type Detection, detectFormat } from "./DetectFormat.ts"
import { workerJob } from "./WorkerJob.ts"

export interface DetectInput {
  readonly bytes: Uint8Array
  readonly filename: string
  readonly mimeType?: string | undefined
}

export const run = (input: DetectInput): Promise<Detection> => detectFormat(input)

export const detectJob = workerJob<DetectInput, Detection>(new URL(import.meta.url), "detect")

/** Above this, detection runs in a worker. */
export const detectInPlaceBytes = 1024 * 1024
