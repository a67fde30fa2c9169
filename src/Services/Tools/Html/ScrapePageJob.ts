/**
 * The scrape tool's reading of one HTML page, run in an extraction worker (`Extractor.runJob`):
 * linkedom, Readability and Turndown are synchronous and can take seconds or overflow a stack on
 * a hostile page, which must never happen on the event loop. Loaded by plain Node with type
 * stripping in the worker: erasable TypeScript and `.ts` specifiers only.
 */
import { workerJob } from "../../Files/Extraction/WorkerJob.ts"
import { domReady } from "./Dom.ts"
import type { ContentFormat, ScrapedHtml } from "./ScrapeHtml.ts"
import { decodeTextBody } from "./TextBody.ts"

export interface ScrapePageInput {
  readonly bytes: Uint8Array
  readonly contentType: string | null
  readonly pageUrl: string
  readonly format: ContentFormat
  readonly mainOnly: boolean
  readonly maxLinks: number
  readonly contentLanguage: string | undefined
}

export const run = async (input: ScrapePageInput): Promise<ScrapedHtml> => {
  const [{ scrapeHtml }] = await Promise.all([import("./ScrapeHtml.ts"), domReady()])
  return scrapeHtml(decodeTextBody(input.bytes, input.contentType), input.pageUrl, input)
}

export const scrapePageJob = workerJob<ScrapePageInput, ScrapedHtml>(new URL(import.meta.url), "html")
