import * as Effect from "effect/Effect"
import type { SearchClient } from "./Search/SearchClient.ts"
import { searchDescription, SearchParameters, type SearchResult } from "./SearchParameters.ts"
import { defineTool, type Tool } from "./ToolDefinition.ts"

/**
 * `search`: the web through the configured back-end (SearXNG, Brave, Tavily or Exa), as a
 * list of hits in one shape whichever back-end answered. Offered only when `tools.search` is set.
 */
export const makeSearchTool = (client: SearchClient): Tool =>
  defineTool({
    id: "search",
    description: searchDescription,
    parameters: SearchParameters,
    run: (parameters) => Effect.map(client(parameters), (results): SearchResult => ({ results }))
  })
