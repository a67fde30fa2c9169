import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { FetchSettings } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { toolCallCostNanoUsd, type ToolId } from "../../Domain/ToolCost.ts"
import type { SearchBackendKind, ToolsSettings } from "../../Domain/ToolsSettings.ts"
import { ConfigLoadError, GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { UrlFetcher } from "../Fetch/UrlFetcher.ts"
import { Extractor } from "../Files/Extractor.ts"
import { makeMapTool } from "./MapTool.ts"
import { makeProjectSlots } from "./ProjectSlots.ts"
import { makeScrapeTool } from "./ScrapeTool.ts"
import { braveSearch } from "./Search/BraveSearch.ts"
import { exaSearch } from "./Search/ExaSearch.ts"
import type { SearchBackend } from "./Search/SearchBackend.ts"
import { makeSearchClient, type SearchClient } from "./Search/SearchClient.ts"
import { searxngSearch } from "./Search/SearxngSearch.ts"
import { tavilySearch } from "./Search/TavilySearch.ts"
import { makeSearchTool } from "./SearchTool.ts"
import type { Tool, ToolCall, ToolListing } from "./ToolDefinition.ts"

export const searchBackends: Record<SearchBackendKind, SearchBackend> = {
  searxng: searxngSearch,
  brave: braveSearch,
  tavily: tavilySearch,
  exa: exaSearch
}

/**
 * The search client `tools.search` describes, or none. A back-end that is configured but
 * unusable (no base URL for SearXNG, its key variable unset) stops start-up with one line
 * naming the key, instead of failing every search later.
 */
const searchClientFrom = (settings: ToolsSettings, file: string) =>
  Effect.gen(function* () {
    const search = settings.search
    if (search === undefined) return undefined
    const backend = searchBackends[search.backend]
    if (search.base_url === undefined && backend.defaultBaseUrl === undefined) {
      return yield* new ConfigLoadError({ file, path: "tools.search.base_url", problem: `the ${search.backend} back-end needs base_url` })
    }
    const keyEnv = search.api_key_env ?? backend.defaultKeyEnv
    if (keyEnv === undefined) return makeSearchClient(backend, search, undefined)
    const key = yield* Config.String(keyEnv).pipe(Config.option)
    if (Option.isNone(key) || key.value.trim() === "") {
      return yield* new ConfigLoadError({
        file,
        path: "tools.search.api_key_env",
        problem: `environment variable ${keyEnv} is not set (the ${search.backend} back-end needs a key)`
      })
    }
    return makeSearchClient(backend, search, key.value.trim())
  })

/**
 * The standalone web tools (`/v1/tools`): what is offered, each tool's decoder and what a
 * call costs. Calls run in the caller's project's slots (`tools.max_concurrent_per_project`).
 */
export class WebTools extends Context.Service<
  WebTools,
  {
    /** What `GET /v1/tools` lists: `search` only when a back-end is configured. */
    readonly list: ReadonlyArray<ToolListing>
    readonly find: (id: string) => Tool | undefined
    /** Runs a decoded call in one of the project's slots (429 when none frees up in time). */
    readonly run: (call: ToolCall, projectId: string) => Effect.Effect<unknown, GatewayError>
    /** The price of one call, integer nano-dollars (`tools.pricing`). */
    readonly costNanoUsd: (tool: ToolId) => number
  }
>()("gateway/WebTools") {
  static readonly make = (input: {
    readonly settings: LoadedSettings
    readonly fetcher: UrlFetcher["Service"]
    readonly extractor: Extractor["Service"]
    readonly search: SearchClient | undefined
  }): WebTools["Service"] => {
    const services = { fetcher: input.fetcher, extractor: input.extractor, tools: input.settings.tools, fetch: input.settings.fetch }
    const tools: ReadonlyArray<Tool> = [
      makeScrapeTool(services),
      ...(input.search === undefined ? [] : [makeSearchTool(input.search)]),
      makeMapTool(services)
    ]
    const byId = new Map(tools.map((tool) => [tool.listing.id as string, tool]))
    const slots = makeProjectSlots(input.settings.tools.max_concurrent_per_project, input.settings.tools.queue_timeout_ms)
    return WebTools.of({
      list: tools.map((tool) => tool.listing),
      find: (id) => byId.get(id),
      run: (call, projectId) => slots(projectId, call.run).pipe(Effect.withSpan("WebTools.run", { attributes: { "tool.id": call.tool } })),
      costNanoUsd: (tool) => toolCallCostNanoUsd(input.settings.tools.pricing, tool)
    })
  }

  /** Needs the guarded fetcher, the Extractor and gateway.yaml (`tools`, `fetch`). */
  static readonly layer = Layer.effect(
    WebTools,
    Effect.gen(function* () {
      const file = yield* GatewayConfigFile
      const search = yield* searchClientFrom(file.config.tools, file.file)
      return WebTools.make({
        settings: { tools: file.config.tools, fetch: file.config.fetch },
        fetcher: yield* UrlFetcher,
        extractor: yield* Extractor,
        search
      })
    })
  )
}

interface LoadedSettings {
  readonly tools: ToolsSettings
  readonly fetch: FetchSettings
}
