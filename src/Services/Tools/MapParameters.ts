import * as Schema from "effect/Schema"
import { withDefault } from "./ToolDefinition.ts"

export const mapDescription =
  "Lists the URLs of a website: from the sitemaps its robots.txt names (sitemap indexes and gzipped sitemaps included), /sitemap.xml, and the links of the start page. Same site only, deduplicated and normalised."

/** The request body of `POST /v1/tools/map`. */
export const MapParameters = Schema.Struct({
  url: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(8192)).annotate({
    description: "The http(s) URL of the site's start page.",
    format: "uri"
  }),
  limit: withDefault(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5000 })), 500, "The most URLs to return."),
  include_subdomains: withDefault(Schema.Boolean, false, "Also list URLs on subdomains of the start URL's host."),
  search: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)).annotate({
      description: "Keep only URLs containing every word of this text (case-insensitive)."
    })
  )
}).annotate({ title: "map", description: mapDescription })

export type MapParameters = typeof MapParameters.Type

export interface MapResult {
  readonly urls: ReadonlyArray<string>
}
