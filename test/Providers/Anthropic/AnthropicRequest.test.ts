import { describe, expect, it } from "@effect/vitest"
import { defaultMaxTokens, thinkingBudgets } from "../../../src/Providers/Anthropic/AnthropicRequest.ts"
import { rejection, wire } from "./AnthropicSupport.ts"

const weather = { type: "function", function: { name: "get_weather", description: "Weather now", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }
const time = { type: "function", function: { name: "get_time" } }

describe("Anthropic request: body and sampling", () => {
  it("names the upstream model and sends only what the client set", () => {
    const body = wire({})
    expect(body).toEqual({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: defaultMaxTokens,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }]
    })
    expect(wire({}, undefined, true).stream).toBe(true)
  })

  it("takes max_tokens from max_completion_tokens (or its alias), else the catalogue, else the constant", () => {
    expect(wire({ max_completion_tokens: 300 }, { max_output_tokens: 64000 }).max_tokens).toBe(300)
    expect(wire({ max_tokens: 200 }, { max_output_tokens: 64000 }).max_tokens).toBe(200)
    expect(wire({}, { max_output_tokens: 64000 }).max_tokens).toBe(64000)
    expect(wire({}).max_tokens).toBe(defaultMaxTokens)
  })

  it("maps stop to stop_sequences and passes temperature and top_p", () => {
    expect(wire({ stop: "END" }).stop_sequences).toEqual(["END"])
    expect(wire({ stop: ["a", "b"] }).stop_sequences).toEqual(["a", "b"])
    expect(wire({ temperature: 0.3 }).temperature).toBe(0.3)
    expect(wire({ temperature: 1 }).temperature).toBe(1)
    expect(wire({ top_p: 0.9 }).top_p).toBe(0.9)
  })

  it("refuses temperature above 1 with a 400 naming temperature instead of clamping", () => {
    const error = rejection({ temperature: 1.5 })
    expect(error.reason).toMatchObject({ _tag: "InvalidRequest", param: "temperature" })
    expect(error.reason.message).toContain("1.5")
  })

  it("asks for native structured output for json_schema and refuses json_object by name", () => {
    const schema = { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"], additionalProperties: false }
    const body = wire({ response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } } })
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema } })
    expect(wire({ response_format: { type: "text" } }).output_config).toBeUndefined()
    expect(rejection({ response_format: { type: "json_object" } }).reason).toMatchObject({ _tag: "InvalidRequest", param: "response_format" })
  })

  it("sends the end-user id as metadata.user_id and drops advisory fields", () => {
    const body = wire({ user: "u-1", metadata: { team: "a" }, store: true, service_tier: "auto", seed: 7 })
    expect(body.metadata).toEqual({ user_id: "u-1" })
    expect(wire({ safety_identifier: "u-2" }).metadata).toEqual({ user_id: "u-2" })
    for (const key of ["store", "service_tier", "seed", "user"]) expect(body[key]).toBeUndefined()
  })

  it("refuses by name what Anthropic cannot do", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ n: 2 }, "n"],
      [{ logprobs: true }, "logprobs"],
      [{ logit_bias: { "50256": -100 } }, "logit_bias"],
      [{ presence_penalty: 0.5 }, "presence_penalty"],
      [{ frequency_penalty: -1 }, "frequency_penalty"],
      [{ prediction: { type: "content", content: "x" } }, "prediction"]
    ]
    for (const [body, param] of cases) expect(rejection(body).reason).toMatchObject({ _tag: "InvalidRequest", param })
    // Neutral values change nothing and are accepted.
    expect(wire({ n: 1, logprobs: false, presence_penalty: 0, frequency_penalty: 0 }).max_tokens).toBe(defaultMaxTokens)
  })
})

describe("Anthropic request: tools", () => {
  it("sends tools with input_schema and leaves tool_choice to Anthropic's default", () => {
    const body = wire({ tools: [weather, time] })
    expect(body.tools).toEqual([
      { name: "get_weather", description: "Weather now", input_schema: weather.function.parameters },
      { name: "get_time", input_schema: { type: "object", properties: {} } }
    ])
    expect(body.tool_choice).toBeUndefined()
  })

  it("maps every tool_choice: auto, none, required, function", () => {
    expect(wire({ tools: [weather], tool_choice: "auto" }).tool_choice).toEqual({ type: "auto" })
    expect(wire({ tools: [weather], tool_choice: "none" }).tool_choice).toEqual({ type: "none" })
    expect(wire({ tools: [weather], tool_choice: "required" }).tool_choice).toEqual({ type: "any" })
    expect(wire({ tools: [weather, time], tool_choice: { type: "function", function: { name: "get_time" } } }).tool_choice).toEqual({
      type: "tool",
      name: "get_time"
    })
  })

  it("maps parallel_tool_calls false to disable_parallel_tool_use", () => {
    expect(wire({ tools: [weather], parallel_tool_calls: false }).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true })
    expect(wire({ tools: [weather], tool_choice: "required", parallel_tool_calls: false }).tool_choice).toEqual({
      type: "any",
      disable_parallel_tool_use: true
    })
    expect(
      wire({ tools: [weather], tool_choice: { type: "function", function: { name: "get_weather" } }, parallel_tool_calls: false }).tool_choice
    ).toEqual({ type: "tool", name: "get_weather", disable_parallel_tool_use: true })
    expect(wire({ tools: [weather], tool_choice: "none", parallel_tool_calls: false }).tool_choice).toEqual({ type: "none" })
    expect(wire({ tools: [weather], parallel_tool_calls: true }).tool_choice).toBeUndefined()
  })

  it("passes strict, omits tool_choice without tools, and refuses non-object parameters", () => {
    const strict = { type: "function", function: { ...weather.function, strict: true } }
    expect(wire({ tools: [strict] }).tools[0].strict).toBe(true)
    const none = wire({ tool_choice: "none" })
    expect(none.tools).toBeUndefined()
    expect(none.tool_choice).toBeUndefined()
    const bad = { type: "function", function: { name: "f", parameters: { type: "string" } } }
    expect(rejection({ tools: [weather, bad] }).reason).toMatchObject({ _tag: "InvalidRequest", param: "tools[1].function.parameters" })
  })
})

describe("Anthropic request: reasoning", () => {
  const reasoning = { reasoning: true, max_output_tokens: 64000 }

  it("turns reasoning_effort into a thinking budget for reasoning models only", () => {
    for (const effort of ["minimal", "low", "medium", "high"] as const) {
      expect(wire({ reasoning_effort: effort }, reasoning).thinking).toEqual({ type: "enabled", budget_tokens: thinkingBudgets[effort] })
    }
    expect(thinkingBudgets.minimal).toBe(1024)
    expect(wire({ reasoning_effort: "high" }, { max_output_tokens: 64000 }).thinking).toBeUndefined()
  })

  it("keeps max_tokens above the budget: a client cap at or below it is a 400, a low catalogue limit shrinks the budget", () => {
    expect(wire({ reasoning_effort: "medium", max_completion_tokens: 5000 }, reasoning).max_tokens).toBe(5000)
    const error = rejection({ reasoning_effort: "medium", max_completion_tokens: thinkingBudgets.medium }, reasoning)
    expect(error.reason).toMatchObject({ _tag: "InvalidRequest", param: "max_completion_tokens" })
    expect(wire({ reasoning_effort: "high" }, { reasoning: true, max_output_tokens: 8192 })).toMatchObject({
      max_tokens: 8192,
      thinking: { type: "enabled", budget_tokens: 8191 }
    })
    expect(rejection({ reasoning_effort: "low" }, { reasoning: true, max_output_tokens: 1000 }).reason).toMatchObject({ param: "reasoning_effort" })
  })

  it("refuses what thinking rules out: forced tools, temperature other than 1, low top_p", () => {
    expect(rejection({ reasoning_effort: "low", tools: [weather], tool_choice: "required" }, reasoning).reason).toMatchObject({ param: "tool_choice" })
    expect(rejection({ reasoning_effort: "low", temperature: 0.2 }, reasoning).reason).toMatchObject({ param: "temperature" })
    expect(rejection({ reasoning_effort: "low", top_p: 0.5 }, reasoning).reason).toMatchObject({ param: "top_p" })
    expect(wire({ reasoning_effort: "low", tools: [weather], tool_choice: "auto", top_p: 0.95 }, reasoning).thinking).toBeDefined()
  })
})
