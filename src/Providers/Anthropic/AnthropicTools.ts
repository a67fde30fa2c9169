import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ToolDefinition } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ToolChoiceWire, ToolWire } from "./AnthropicWire.ts"

/**
 * Function tools -> Anthropic tools: the JSON Schema of `parameters` is the `input_schema`,
 * which Anthropic requires to describe an object.
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use
 */
const tool = (definition: ToolDefinition, index: number): ToolWire => {
  const fn = definition.function
  const parameters = fn.parameters ?? { type: "object", properties: {} }
  if (parameters["type"] !== undefined && parameters["type"] !== "object") {
    const at = `tools[${index}].function.parameters`
    throw GatewayError.invalid(`'${at}' must be a JSON Schema of type 'object'.`, at)
  }
  return {
    name: fn.name,
    ...(fn.description === undefined || fn.description === "" ? {} : { description: fn.description }),
    input_schema: { type: "object", ...parameters },
    ...(fn.strict === true ? { strict: true } : {})
  }
}

/**
 * `tool_choice` auto / none / required / function -> auto / none / any / tool, and
 * `parallel_tool_calls: false` -> `disable_parallel_tool_use` (meaningless with `none`).
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools#forcing-tool-use
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use
 */
const toolChoice = (request: ChatRequest): ToolChoiceWire | undefined => {
  const choice = request.tool_choice
  const single = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {}
  if (choice === "none") return { type: "none" }
  if (choice === "required") return { type: "any", ...single }
  if (typeof choice === "object") return { type: "tool", name: choice.function.name, ...single }
  if (choice === "auto" || request.parallel_tool_calls === false) return { type: "auto", ...single }
  return undefined
}

/** The request's tool fields, or nothing when it has no tools (a bare `tool_choice` has nothing to choose from). */
export const anthropicTools = (
  request: ChatRequest
): { readonly tools?: ReadonlyArray<ToolWire>; readonly tool_choice?: ToolChoiceWire } => {
  if (request.tools === undefined || request.tools.length === 0) return {}
  const choice = toolChoice(request)
  return { tools: request.tools.map(tool), ...(choice === undefined ? {} : { tool_choice: choice }) }
}

/** Whether the request obliges the model to call a tool (Anthropic then allows no thinking). */
export const forcesToolUse = (request: ChatRequest): boolean =>
  request.tools !== undefined && request.tools.length > 0 &&
  (request.tool_choice === "required" || typeof request.tool_choice === "object")
