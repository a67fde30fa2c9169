import type { JsonObject, ResponseFormat, ToolChoice, ToolDefinition } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"

/**
 * Responses `tools`, `tool_choice` and `text.format` -> their chat counterparts. Responses
 * function tools are flat (`{type, name, parameters}`); hosted tools (web search, file search,
 * code interpreter...) run inside OpenAI and have no counterpart the gateway could run, so they
 * are refused by name.
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
 */

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const invalid = (path: string, message: string) => GatewayError.invalid(message, path)
const namePattern = /^[a-zA-Z0-9_-]{1,64}$/

export const functionTools = (raw: ReadonlyArray<unknown>): Array<ToolDefinition> => {
  const names = new Set<string>()
  return raw.map((tool, i) => {
    const path = `tools[${i}]`
    if (!isRecord(tool)) throw invalid(path, `Invalid value for '${path}': expected a tool object.`)
    if (tool["type"] !== "function") {
      throw invalid(
        `${path}.type`,
        typeof tool["type"] === "string"
          ? `The tool type '${tool["type"]}' runs inside OpenAI and is not available through this gateway; declare a 'function' tool instead.`
          : `Invalid value for '${path}.type': expected 'function'.`
      )
    }
    const name = tool["name"]
    if (typeof name !== "string" || !namePattern.test(name)) {
      throw invalid(`${path}.name`, `Invalid value for '${path}.name': expected a name of 1 to 64 letters, digits, underscores or dashes.`)
    }
    if (names.has(name)) throw invalid(`${path}.name`, `Duplicate function name '${name}' in 'tools'.`)
    names.add(name)
    const { description, parameters, strict } = tool
    if (description !== undefined && description !== null && typeof description !== "string") {
      throw invalid(`${path}.description`, `Invalid value for '${path}.description': expected a string.`)
    }
    if (parameters !== undefined && parameters !== null && !isRecord(parameters)) {
      throw invalid(`${path}.parameters`, `Invalid value for '${path}.parameters': expected a JSON Schema object.`)
    }
    if (strict !== undefined && strict !== null && typeof strict !== "boolean") {
      throw invalid(`${path}.strict`, `Invalid value for '${path}.strict': expected a boolean.`)
    }
    return {
      type: "function",
      function: {
        name,
        ...(typeof description === "string" ? { description } : {}),
        ...(isRecord(parameters) ? { parameters: parameters as JsonObject } : {}),
        ...(typeof strict === "boolean" ? { strict } : {})
      }
    }
  })
}

/** `tool_choice`: a mode, or one function by name. */
export const toolChoiceOf = (raw: unknown, tools: ReadonlyArray<ToolDefinition>): ToolChoice => {
  if (raw === "none" || raw === "auto" || raw === "required") {
    if (raw === "required" && tools.length === 0) throw invalid("tool_choice", "'tool_choice' 'required' requires 'tools'.")
    return raw
  }
  if (isRecord(raw) && raw["type"] === "function") {
    const name = raw["name"]
    if (typeof name !== "string") throw invalid("tool_choice.name", "Invalid value for 'tool_choice.name': expected a string.")
    if (!tools.some((tool) => tool.function.name === name)) {
      throw invalid("tool_choice.name", `'tool_choice' names the function '${name}', which is not among 'tools'.`)
    }
    return { type: "function", function: { name } }
  }
  if (isRecord(raw) && typeof raw["type"] === "string") {
    throw invalid("tool_choice.type", `The tool choice '${raw["type"]}' is not supported by this gateway; use 'none', 'auto', 'required' or a function.`)
  }
  throw invalid("tool_choice", "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or {type: 'function', name}.")
}

/** `text.format` -> `response_format`. */
export const responseFormatOf = (raw: unknown): ResponseFormat | undefined => {
  if (raw === undefined || raw === null) return undefined
  if (!isRecord(raw)) throw invalid("text.format", "Invalid value for 'text.format': expected a format object.")
  switch (raw["type"]) {
    case "text":
      return undefined
    case "json_object":
      return { type: "json_object" }
    case "json_schema": {
      const name = raw["name"]
      if (typeof name !== "string" || !namePattern.test(name)) {
        throw invalid("text.format.name", "Invalid value for 'text.format.name': expected a name of 1 to 64 letters, digits, underscores or dashes.")
      }
      if (!isRecord(raw["schema"])) throw invalid("text.format.schema", "Invalid value for 'text.format.schema': expected a JSON Schema object.")
      const description = raw["description"]
      const strict = raw["strict"]
      return {
        type: "json_schema",
        json_schema: {
          name,
          schema: raw["schema"] as JsonObject,
          ...(typeof description === "string" ? { description } : {}),
          ...(typeof strict === "boolean" ? { strict } : {})
        }
      }
    }
    default:
      throw invalid("text.format.type", "Invalid value for 'text.format.type': expected 'text', 'json_object' or 'json_schema'.")
  }
}

/** The tools as the response object repeats them. */
export const echoTools = (tools: ReadonlyArray<ToolDefinition>): Array<JsonObject> =>
  tools.map((tool) => ({
    type: "function",
    name: tool.function.name,
    description: tool.function.description ?? null,
    parameters: tool.function.parameters ?? null,
    strict: tool.function.strict ?? null
  }))

/** The format as the response object repeats it. */
export const echoFormat = (format: ResponseFormat | undefined): JsonObject => {
  if (format === undefined || format.type === "text") return { type: "text" }
  if (format.type === "json_object") return { type: "json_object" }
  const f = format.json_schema
  return { type: "json_schema", name: f.name, schema: f.schema, ...(f.description === undefined ? {} : { description: f.description }), strict: f.strict ?? null }
}
