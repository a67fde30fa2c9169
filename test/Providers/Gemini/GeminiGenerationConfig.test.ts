import { describe, expect, it } from "@effect/vitest"
import { geminiGenerationConfig, thinkingBudgets } from "../../../src/Providers/Gemini/GeminiGenerationConfig.ts"
import { geminiRequestBody } from "../../../src/Providers/Gemini/GeminiRequest.ts"
import { chatRequest, refusal, target } from "./GeminiTestSupport.ts"

const config = (body: Record<string, unknown>, capabilities: Record<string, unknown> = {}) =>
  geminiGenerationConfig(chatRequest(body), target(capabilities))

describe("geminiGenerationConfig", () => {
  it("is empty when the client set nothing", () => {
    expect(config({})).toEqual({})
  })

  it("maps sampling and output settings", () => {
    expect(
      config({
        temperature: 0.3,
        max_tokens: 256,
        stop: ["END", "STOP"],
        n: 2,
        seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: -0.5
      })
    ).toEqual({
      temperature: 0.3,
      maxOutputTokens: 256,
      stopSequences: ["END", "STOP"],
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5
    })
    expect(config({ top_p: 0.9, stop: "\n\n", max_completion_tokens: 10 })).toEqual({ topP: 0.9, stopSequences: ["\n\n"], maxOutputTokens: 10 })
  })

  it("maps logprobs and top_logprobs", () => {
    expect(config({ logprobs: true, top_logprobs: 3 })).toEqual({ responseLogprobs: true, logprobs: 3 })
    expect(config({ logprobs: true })).toEqual({ responseLogprobs: true })
    expect(config({ logprobs: false })).toEqual({})
  })

  it("maps JSON mode and JSON schema output", () => {
    expect(config({ response_format: { type: "json_object" } })).toEqual({ responseMimeType: "application/json" })
    expect(config({ response_format: { type: "text" } })).toEqual({})
    expect(
      config({
        response_format: {
          type: "json_schema",
          json_schema: { name: "p", strict: true, schema: { type: "object", properties: { name: { type: "string" }, age: { type: ["integer", "null"] } }, required: ["name", "age"], additionalProperties: false } }
        }
      })
    ).toEqual({
      responseMimeType: "application/json",
      responseSchema: {
        type: "OBJECT",
        properties: { name: { type: "STRING" }, age: { type: "INTEGER", nullable: true } },
        required: ["name", "age"],
        propertyOrdering: ["name", "age"]
      }
    })
  })

  it("refuses a response schema it cannot express, naming the path", () => {
    expect(
      refusal(() => config({ response_format: { type: "json_schema", json_schema: { name: "p", schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: true } } } }))
    ).toMatchObject({ param: "response_format.json_schema.schema.additionalProperties" })
  })

  it.each(Object.entries(thinkingBudgets))("maps reasoning_effort %s to a thinking budget of %i with thoughts included", (effort, budget) => {
    expect(config({ reasoning_effort: effort }, { reasoning: true })).toEqual({ thinkingConfig: { thinkingBudget: budget, includeThoughts: true } })
  })

  it("ignores reasoning_effort for models the catalogue does not mark as reasoning", () => {
    expect(config({ reasoning_effort: "high" }, { reasoning: false })).toEqual({})
  })
})

describe("geminiRequestBody", () => {
  it("assembles contents, tools and generationConfig", () => {
    const body = geminiRequestBody(
      chatRequest({
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
        temperature: 0.2,
        tools: [{ type: "function", function: { name: "f" } }],
        tool_choice: "required",
        user: "end-user-1",
        metadata: { trace: "1" },
        store: true
      }),
      target()
    )
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      tools: [{ functionDeclarations: [{ name: "f" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
      generationConfig: { temperature: 0.2 }
    })
  })

  it("refuses logit_bias and unknown top-level fields by name", () => {
    expect(refusal(() => geminiRequestBody(chatRequest({ logit_bias: { "50256": -100 } }), target()))).toMatchObject({ param: "logit_bias" })
    expect(refusal(() => geminiRequestBody(chatRequest({ prediction: { type: "content", content: "x" } }), target()))).toMatchObject({ param: "prediction" })
  })
})
