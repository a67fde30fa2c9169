import type { SearchBackendKind } from "../../../Domain/ToolsSettings.ts"
import { isoDate } from "../Html/PageMetadata.ts"
import type { SearchHit, SearchParameters } from "../SearchParameters.ts"

/** One HTTP request to a search back-end. */
export interface BackendRequest {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

export interface BackendContext {
  /** Without a trailing slash. */
  readonly baseUrl: string
  readonly apiKey: string | undefined
  /** Unix milliseconds, for back-ends that take a start date instead of a period. */
  readonly now: number
}

/**
 * A search back-end as two pure functions over its real wire format: the request for a query,
 * and the hits in its JSON answer (undefined when the answer is not that back-end's shape).
 */
export interface SearchBackend {
  readonly kind: SearchBackendKind
  readonly defaultBaseUrl: string | undefined
  /** The environment variable holding the key; undefined for a back-end that needs none. */
  readonly defaultKeyEnv: string | undefined
  readonly request: (query: SearchParameters, context: BackendContext) => BackendRequest
  readonly decode: (body: unknown) => ReadonlyArray<SearchHit> | undefined
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" }

/** Snippets arrive with highlight markup (`<strong>`) and entities: plain text out. */
export const plainSnippet = (value: unknown): string =>
  typeof value !== "string"
    ? ""
    : value
      .replace(/<[^<>]*>/g, "")
      .replace(/&(#?\w+);/g, (match, name: string) => entities[name] ?? (/^#\d+$/.test(name) ? String.fromCodePoint(Number(name.slice(1))) : match))
      .replace(/\s+/g, " ")
      .trim()

/** One hit from loosely typed fields; undefined without a usable http(s) URL. */
export const hit = (fields: { readonly title: unknown; readonly url: unknown; readonly snippet: unknown; readonly published: unknown }): SearchHit | undefined => {
  if (typeof fields.url !== "string" || !/^https?:\/\//i.test(fields.url)) return undefined
  const published = typeof fields.published === "string" ? isoDate(fields.published) : undefined
  return {
    title: plainSnippet(fields.title),
    url: fields.url,
    snippet: plainSnippet(fields.snippet),
    ...(published === undefined ? {} : { published_at: published })
  }
}

export const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

/** The hits of an array of result objects, or undefined when `value` is not an array. */
export const hitsOf = (value: unknown, pick: (item: Record<string, unknown>) => SearchHit | undefined): ReadonlyArray<SearchHit> | undefined =>
  Array.isArray(value) ? value.flatMap((item) => { const r = record(item); const h = r === undefined ? undefined : pick(r); return h === undefined ? [] : [h] }) : undefined
