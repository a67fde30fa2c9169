import type { FetchSettings } from "../../Domain/GatewayConfig.ts"
import type { ToolsSettings } from "../../Domain/ToolsSettings.ts"
import type { UrlFetcher } from "../Fetch/UrlFetcher.ts"
import type { Extractor } from "../Files/Extractor.ts"

/** What the tools are built from: the guarded fetcher, the document extractor and their settings. */
export interface ToolServices {
  readonly fetcher: UrlFetcher["Service"]
  readonly extractor: Extractor["Service"]
  readonly tools: ToolsSettings
  readonly fetch: FetchSettings
}

/** Largest body a tool reads: `tools.max_bytes_mb`, never above `fetch.max_bytes_mb`. */
export const toolMaxBytes = (services: ToolServices): number =>
  Math.min(services.tools.max_bytes_mb, services.fetch.max_bytes_mb) * 1024 * 1024
