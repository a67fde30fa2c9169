/**
 * The map tool's reading of its start page (every link, absolute), run in an extraction worker
 * like the scrape tool's (`ScrapePageJob`). Erasable TypeScript only: plain Node loads it there.
 */
import { workerJob } from "../../Files/Extraction/WorkerJob.ts"
import { domReady, parseDocument } from "./Dom.ts"
import { documentBase, pageLinks } from "./PageLinks.ts"
import { decodeTextBody } from "./TextBody.ts"

export interface PageLinksInput {
  readonly bytes: Uint8Array
  readonly contentType: string | null
  readonly pageUrl: string
  readonly max: number
}

export const run = async (input: PageLinksInput): Promise<ReadonlyArray<string>> => {
  await domReady()
  const document = parseDocument(decodeTextBody(input.bytes, input.contentType))
  return pageLinks(document, documentBase(document, input.pageUrl), input.max)
}

export const pageLinksJob = workerJob<PageLinksInput, ReadonlyArray<string>>(new URL(import.meta.url), "page-links")
