/**
 * One sitemap read in an extraction worker (`Extractor.runJob`): a multi-megabyte XML sitemap
 * (or its gzip) takes seconds to parse, which must not happen on the event loop. Erasable
 * TypeScript only: plain Node loads it there.
 */
import { workerJob } from "../Files/Extraction/WorkerJob.ts"
import { readSitemap, type SitemapEntries } from "./Sitemaps.ts"

export interface SitemapInput {
  readonly bytes: Uint8Array
  readonly contentType: string | null
  /** Decompressed bytes a gzip sitemap may grow to. */
  readonly maxBytes: number
  /** Page URLs the caller can still use: no more cross the thread boundary. */
  readonly maxPages: number
}

export const run = (input: SitemapInput): SitemapEntries | undefined => {
  const entries = readSitemap(input.bytes, input.contentType, input.maxBytes)
  return entries === undefined ? undefined : { pages: entries.pages.slice(0, input.maxPages), sitemaps: entries.sitemaps.slice(0, 1_000) }
}

export const sitemapJob = workerJob<SitemapInput, SitemapEntries | undefined>(new URL(import.meta.url), "sitemap")
