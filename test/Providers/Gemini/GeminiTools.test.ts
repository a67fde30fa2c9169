import { describe, expect, it } from "@effect/vitest"
import { geminiTools } from "../../../src/Providers/Gemini/GeminiTools.ts"
import { chatRequest, refusal } from "./GeminiTestSupport.ts"

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }
  }
}
const clock = { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } }
const tools = (body: Record<string, unknown>) => geminiTools(chatRequest(body))

describe("geminiTools", () => {
  it("sends nothing without tools", () => {
    expect(tools({})).toEqual({})
    expect(tools({ tool_choice: "none" })).toEqual({})
  })

  it("declares every function in one tool, converting parameters and omitting empty ones", () => {
    expect(tools({ tools: [weather, clock] })).toEqual({
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_weather",
              description: "Current weather",
              parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] }
            },
            { name: "get_time" }
          ]
        }
      ]
    })
  })

  it.each([
    ["auto", { mode: "AUTO" }],
    ["none", { mode: "NONE" }],
    ["required", { mode: "ANY" }],
    [{ type: "function", function: { name: "get_time" } }, { mode: "ANY", allowedFunctionNames: ["get_time"] }]
  ])("maps tool_choice %j to functionCallingConfig %j", (choice, config) => {
    expect(tools({ tools: [weather, clock], tool_choice: choice }).toolConfig).toEqual({ functionCallingConfig: config })
  })

  it("leaves the mode to Gemini without tool_choice, and asks for VALIDATED when a function is strict", () => {
    expect(tools({ tools: [weather] }).toolConfig).toBeUndefined()
    const strict = { ...weather, function: { ...weather.function, strict: true } }
    expect(tools({ tools: [strict] }).toolConfig).toEqual({ functionCallingConfig: { mode: "VALIDATED" } })
    expect(tools({ tools: [strict], tool_choice: "auto" }).toolConfig).toEqual({ functionCallingConfig: { mode: "VALIDATED" } })
    expect(tools({ tools: [strict], tool_choice: "required" }).toolConfig).toEqual({ functionCallingConfig: { mode: "ANY" } })
  })

  it("refuses a parameter schema Gemini cannot express, naming the schema path", () => {
    const bad = { type: "function", function: { name: "f", parameters: { type: "object", properties: { x: { type: "object", patternProperties: { a: {} } } } } } }
    expect(refusal(() => tools({ tools: [weather, bad] }))).toMatchObject({
      tag: "InvalidRequest",
      param: "tools[1].function.parameters.properties.x.patternProperties"
    })
  })

  it("refuses parallel_tool_calls: false, which Gemini cannot honour", () => {
    expect(refusal(() => tools({ tools: [weather], parallel_tool_calls: false }))).toMatchObject({ param: "parallel_tool_calls" })
    expect(tools({ tools: [weather], parallel_tool_calls: true }).tools).toHaveLength(1)
  })
})
