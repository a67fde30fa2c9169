import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { GatewayError } from "../Domain/GatewayError.ts"
import { toolCallCostNanoUsd } from "../Domain/ToolCost.ts"
import type { ToolListing } from "../Services/Tools/ToolDefinition.ts"
import { WebTools } from "../Services/Tools/WebTools.ts"
import { authenticated } from "./Authentication.ts"
import { nothingUsed } from "../Services/Usage/RequestOutcome.ts"
import { answerWith, meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"

const view = (tool: ToolListing) => ({ id: tool.id, object: "tool", description: tool.description, parameters: tool.parameters })

const list = authenticated(
  "tools",
  Effect.map(WebTools, (tools) => HttpServerResponse.jsonUnsafe({ object: "list", data: tools.list.map(view) }))
)

const unknownTool = (id: string) => GatewayError.notFound(`No such tool: '${id}'. GET /v1/tools lists the tools.`, undefined, "tool_not_found")

/** The tool named by the path, or a 404 before anything else: an unknown tool is an unknown URL. */
const toolOfPath = Effect.flatMap(HttpRouter.params, (params) =>
  Effect.flatMap(WebTools, (tools) => {
    const id = params["id"] ?? ""
    const tool = tools.find(id)
    return tool === undefined ? Effect.fail(unknownTool(id)) : Effect.succeed({ tools, tool })
  })
)

const retrieve = authenticated("tools", Effect.map(toolOfPath, ({ tool }) => HttpServerResponse.jsonUnsafe(view(tool.listing))))

/** The tool named by the path, if there is one: looked up before the key is, refused only after it. */
const toolLookup = Effect.flatMap(HttpRouter.params, (params) =>
  Effect.map(WebTools, (tools) => {
    const id = params["id"] ?? ""
    return { tools, id, tool: tools.find(id) }
  })
)

/**
 * One tool call: scope `tools`, a usage event per call (`units` 1 and the tool's per-call
 * price when the call ran; a refused call is not charged), the body decoded by the tool's own
 * schema. The key is checked first, so an unknown tool is a 404 only for a caller with a key
 * (without one, a 401 like every `/v1` route). The billed amount is never in the response (spec 1.2).
 */
const run = Effect.flatMap(toolLookup, ({ tools, id, tool }) =>
  meteredEndpoint(
    "tools",
    "tools",
    (body) => (tool === undefined ? Effect.fail(unknownTool(id)) : Effect.map(tool.decode(body), (call) => ({ model: call.tool, call }))),
    (request, _log, principal) =>
      Effect.map(tools.run(request.call, principal.projectId), (result) =>
        answerWith(
          { ...nothingUsed, units: 1, fixedCostNanoUsd: tools.costNanoUsd(request.call.tool) },
          (headers) => HttpServerResponse.jsonUnsafe(result, { headers })
        )),
    (request, context) => ({ nanoUsd: toolCallCostNanoUsd(context.config.tools.pricing, request.call.tool), tokens: 0 })
  ))

export const toolsRoutes = [
  route("GET", "/v1/tools", list),
  route("GET", "/v1/tools/:id", retrieve),
  route("POST", "/v1/tools/:id", run)
]
