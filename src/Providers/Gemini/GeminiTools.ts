import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import type { ToolDefinition } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { geminiSchema } from "./GeminiSchema.ts"
import { type GeminiFunctionDeclaration, type GeminiRequestBody, type GeminiToolConfig, isRecord } from "./GeminiWire.ts"

/** Keys a "takes no arguments" object schema may carry. */
const emptyObjectKeys: ReadonlySet<string> = new Set(["type", "properties", "required", "additionalProperties", "$schema", "title", "description"])

/**
 * `{"type":"object","properties":{}}` is how clients declare a function without arguments;
 * Gemini refuses an OBJECT without properties, and a declaration without `parameters` means
 * exactly "no arguments".
 */
const takesNoArguments = (parameters: Readonly<Record<string, unknown>>): boolean =>
  parameters["type"] === "object" &&
  (parameters["properties"] === undefined || (isRecord(parameters["properties"]) && Object.keys(parameters["properties"]).length === 0)) &&
  (parameters["required"] === undefined || (Array.isArray(parameters["required"]) && parameters["required"].length === 0)) &&
  Object.keys(parameters).every((key) => emptyObjectKeys.has(key))

/** @see https://ai.google.dev/api/caching#FunctionDeclaration */
const declaration = (tool: ToolDefinition, index: number): GeminiFunctionDeclaration => {
  const fn = tool.function
  const parameters = fn.parameters
  return {
    name: fn.name,
    ...(fn.description === undefined ? {} : { description: fn.description }),
    ...(parameters === undefined || takesNoArguments(parameters)
      ? {}
      : { parameters: geminiSchema(parameters, `tools[${index}].function.parameters`, { propertyOrdering: false }) })
  }
}

/**
 * `tool_choice` -> function calling mode. `required` and a named function are `ANY` (the named
 * one through `allowedFunctionNames`); both already guarantee schema adherence. For `auto`,
 * `strict: true` on any function asks for the same guarantee, which is the `VALIDATED` mode.
 * @see https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes
 */
const toolConfig = (request: ChatRequest, strict: boolean): GeminiToolConfig | undefined => {
  const choice = request.tool_choice
  if (choice === undefined) return strict ? { functionCallingConfig: { mode: "VALIDATED" } } : undefined
  if (typeof choice === "object") return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } }
  switch (choice) {
    case "none":
      return { functionCallingConfig: { mode: "NONE" } }
    case "required":
      return { functionCallingConfig: { mode: "ANY" } }
    case "auto":
      return { functionCallingConfig: { mode: strict ? "VALIDATED" : "AUTO" } }
  }
}

/** `tools` -> one Gemini tool holding every function declaration, plus `toolConfig`. */
export const geminiTools = (request: ChatRequest): Pick<GeminiRequestBody, "tools" | "toolConfig"> => {
  if (request.tools === undefined || request.tools.length === 0) return {}
  if (request.parallel_tool_calls === false) {
    // Gemini may answer with several calls in one turn and has no switch to prevent it.
    throw GatewayError.invalid("'parallel_tool_calls: false' is not supported by this model.", "parallel_tool_calls", "unsupported_parameter")
  }
  const functionDeclarations = request.tools.map(declaration)
  const config = toolConfig(request, request.tools.some((tool) => tool.function.strict === true))
  return { tools: [{ functionDeclarations }], ...(config === undefined ? {} : { toolConfig: config }) }
}
