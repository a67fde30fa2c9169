import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ModelConfig } from "../../../src/Domain/GatewayConfig.ts"
import {
  completionFromResponsesApi,
  initialResponsesApiStreamState,
  responsesApiBody,
  responsesApiStreamStep
} from "../../../src/Providers/OpenAi/OpenAiResponsesApi.ts"
import { functionCall, reasoning, responsesBody, responsesTextEvents, responsesToolEvents, responsesUsage, textMessage } from "../../support/OpenAiResponsesFixtures.ts"

const model = (reasoningModel: boolean) =>
  Schema.decodeUnknownSync(ModelConfig)({ id: "m", kind: "chat", deployments: [{ provider: "p", model: "up" }], capabilities: { reasoning: reasoningModel } })

const run = (events: ReadonlyArray<Record<string, unknown>>) => {
  const state = initialResponsesApiStreamState()
  return events.map((event, i) => responsesApiStreamStep(state, String(event["type"]), JSON.stringify({ ...event, sequence_number: i })))
}
const neutral = (steps: ReturnType<typeof run>) =>
  steps.flatMap((step) => (step._tag === "Error" ? [] : step.events.filter((e) => e._tag !== "Native")))

/** OpenAI's Responses API, read back into neutral terms (golden bodies shaped like its API reference's examples). */
describe("OpenAI Responses API codec", () => {
  it("the upstream body is the client's, for the upstream model, stored nowhere, with encrypted reasoning for reasoning models", () => {
    const native = { api: "openai-responses" as const, body: { model: "m", input: "hi", previous_response_id: "resp_x", stream: true, include: ["message.output_text.logprobs"] } }
    expect(responsesApiBody(native, { upstreamModel: "o4-mini", model: model(true) }, false)).toEqual({
      model: "o4-mini",
      input: "hi",
      store: false,
      include: ["message.output_text.logprobs", "reasoning.encrypted_content"]
    })
    expect(responsesApiBody({ api: "openai-responses", body: { model: "m", input: "hi" } }, { upstreamModel: "gpt-4.1", model: model(false) }, true)).toEqual({
      model: "gpt-4.1",
      input: "hi",
      store: false,
      stream: true
    })
  })

  it("a response object: text, reasoning summary, function calls, usage with cached and reasoning tokens, kept whole", () => {
    const body = responsesBody(
      [reasoning("rs_1", "Thinking.", "gAAAA"), textMessage("msg_1", "Checking."), functionCall("fc_1", "call_1", "get_weather", "{\"city\":\"Paris\"}")],
      { usage: responsesUsage(100, 20, { cached: 40, reasoning: 8 }) }
    )
    const completion = completionFromResponsesApi(body)!
    expect(completion.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        content: "Checking.",
        reasoning_content: "Thinking.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }]
      }
    })
    expect(completion.usage).toEqual({ promptTokens: 100, completionTokens: 20, cachedTokens: 40, reasoningTokens: 8 })
    expect(completion.native).toBe(body)
    expect(completionFromResponsesApi(responsesBody([textMessage("m", "Hel")], { status: "incomplete", incomplete: "max_output_tokens" }))!.choices[0]!.finish_reason).toBe("length")
    expect(completionFromResponsesApi({ object: "chat.completion" })).toBeUndefined()
  })

  it("a text stream: every event kept, its deltas, then usage and finish at response.completed", () => {
    const steps = run(responsesTextEvents(["Hel", "lo"]))
    expect(steps.every((step) => step._tag !== "Error" && step.events[0]?._tag === "Native")).toBe(true)
    expect(steps.at(-1)!._tag).toBe("Done")
    expect(neutral(steps)).toEqual([
      { _tag: "TextDelta", choice: 0, text: "Hel" },
      { _tag: "TextDelta", choice: 0, text: "lo" },
      { _tag: "Usage", usage: { promptTokens: 12, completionTokens: 3, cachedTokens: 0, reasoningTokens: 0 } },
      { _tag: "Finish", choice: 0, reason: "stop" }
    ])
  })

  it("function calls start with their item and take their argument pieces by item id", () => {
    const events = neutral(run(responsesToolEvents()))
    expect(events.filter((e) => e._tag === "ToolCallStart")).toEqual([
      { _tag: "ToolCallStart", choice: 0, toolIndex: 0, id: "call_abc", name: "get_weather" },
      { _tag: "ToolCallStart", choice: 0, toolIndex: 1, id: "call_def", name: "get_time" }
    ])
    expect(events.filter((e) => e._tag === "ToolCallDelta").map((e) => e._tag === "ToolCallDelta" && [e.toolIndex, e.arguments])).toEqual([
      [0, "{\"city\":"],
      [0, "\"Paris\"}"],
      [1, "{\"tz\":\"CET\"}"]
    ])
    expect(events.at(-1)).toEqual({ _tag: "Finish", choice: 0, reason: "tool_calls" })
  })

  it("response.failed and error events fail the stream; server errors may be retried", () => {
    const [failed] = run([{ type: "response.failed", response: { ...responsesBody([]), status: "failed", error: { code: "server_error", message: "boom" } } }])
    expect(failed).toEqual({ _tag: "Error", message: "boom", retryable: true })
    const [error] = run([{ type: "error", code: "invalid_prompt", message: "no", param: null }])
    expect(error).toEqual({ _tag: "Error", message: "no", retryable: false })
    expect(responsesApiStreamStep(initialResponsesApiStreamState(), "message", "{not json")).toMatchObject({ _tag: "Error" })
  })
})
