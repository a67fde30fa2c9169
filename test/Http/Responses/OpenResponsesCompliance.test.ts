import { describe, expect, it } from "@effect/vitest"
import type { Reply } from "../../support/FakeUpstream.ts"
import { streamingEventTypes, validateResponseResource, validateStreamingEvent } from "../../support/OpenResponsesSchema.ts"
import { responsesConfig, type ResponsesTarget, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { useGateway } from "../../support/UseGateway.ts"

/**
 * The Open Responses specification's compliance checks (its runner's basic, streaming, system
 * prompt, tool calling, streaming tool calling, image input and multi-turn checks), each sent as
 * the runner sends it: `POST {base}/responses` with a bearer key and `stream` set either way. As
 * the runner does, every response object is validated against the published `ResponseResource`
 * schema and every stream event against the schema of its type, then the check's own
 * conditions are applied; here also what reached the provider, on every kind of provider.
 */

interface StreamEvent {
  readonly event: string
  readonly data: Record<string, any>
}

/** A `text/event-stream` body read as the runner reads it: `event:`/`data:` pairs, `[DONE]` skipped. */
const parseEvents = (text: string): Array<StreamEvent> => {
  const events: Array<StreamEvent> = []
  for (const frame of text.split("\n\n")) {
    const lines = frame.split("\n")
    const data = lines.find((line) => line.startsWith("data:"))?.slice(5).trim()
    if (data === undefined || data === "" || data === "[DONE]") continue
    const parsed = JSON.parse(data) as Record<string, any>
    events.push({ event: lines.find((line) => line.startsWith("event:"))?.slice(6).trim() ?? String(parsed["type"]), data: parsed })
  }
  return events
}

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Get the current weather for a location",
  parameters: {
    type: "object",
    properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
    required: ["location"]
  }
}
const weatherQuestion = { type: "message", role: "user", content: "What's the weather like in San Francisco?" }
/** The runner's image: a 32x32 red heart on white. */
const heart =
  "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAABmklEQVR42tyWAaTyUBzFew/eG4AHz+MBSAHKBiJRGFKwIgQQJKLUIioBIhCAiCAAEizAQIAECaASqFFJq84nudjnaqvuPnxzgP9xfrq5938csPn7PwHTKSoViCIEAYEAMhmoKsU2mUCWEQqB5xEMIp/HaGQG2G6RSuH9HQ7H34rFrtPbdz4jl6PbwmEsl3QA1mt4vcRKk8dz9eg6IpF7tt9fzGY0gCgafFRFo5Blc5vLhf3eCOj1yNhM5GRMVK0aATxPZoz09YXjkQDmczJgquGQAPp9WwCNBgG027YACgUC6HRsAZRKBDAY2AJoNv/ZnwzA6WScznG3p4UAymXGAEkyXrTFAh8fLAGqagQAyGaZpYsi7bHTNPz8MEj//LxuFPo+UBS8vb0KaLXubrRa7aX0RMLCykwmn0z3+XA4WACcTpCkh9MFAZpmuVXo+mO/w+/HZvNgbblcUCxaSo/Hyck80Yu6XXDcvfVZr79cvMZjuN2U9O9vKAqjZrfbIZ0mV4TUi9Xqz6jddNy//7+e3n8Fhf/Llo2kxi8AQyGRoDkmAhAAAAAASUVORK5CYII="

interface Check {
  readonly id: string
  readonly streaming: boolean
  readonly body: (model: string) => Record<string, unknown>
  readonly reply: (target: ResponsesTarget) => Reply
  /** The check's own conditions on the final response and the events (the runner's validators). */
  readonly validate: (response: Record<string, any>, events: ReadonlyArray<StreamEvent>) => Array<string>
  /** What the provider must have been sent. */
  readonly sent: (target: ResponsesTarget, upstreamBody: string) => void
}

const hasOutput = (response: Record<string, any>) => (Array.isArray(response["output"]) && response["output"].length > 0 ? [] : ["Response has no output items"])
const completed = (response: Record<string, any>) => (response["status"] === "completed" ? [] : [`Expected status "completed" but got "${response["status"]}"`])
const hasItem = (type: string) => (response: Record<string, any>) =>
  (response["output"] as Array<Record<string, unknown>>).some((item) => item["type"] === type) ? [] : [`Expected output item of type "${type}" but none found`]
const streamed = (_: unknown, events: ReadonlyArray<StreamEvent>) => (events.length > 0 ? [] : ["No streaming events received"])

const functionCallEvents = (_: unknown, events: ReadonlyArray<StreamEvent>): Array<string> => {
  const errors: Array<string> = []
  const types = events.map((e) => e.data["type"])
  const withCall = (type: string) => events.some((e) => e.data["type"] === type && e.data["item"]?.["type"] === "function_call")
  if (!withCall("response.output_item.added")) errors.push("Missing response.output_item.added event with function_call item")
  if (!types.includes("response.function_call_arguments.delta")) errors.push("Missing response.function_call_arguments.delta event")
  if (!types.includes("response.function_call_arguments.done")) errors.push("Missing response.function_call_arguments.done event")
  if (!withCall("response.output_item.done")) errors.push("Missing response.output_item.done event with function_call item")
  return errors
}

const all = (...validators: ReadonlyArray<(r: Record<string, any>, e: ReadonlyArray<StreamEvent>) => Array<string>>) => (r: Record<string, any>, e: ReadonlyArray<StreamEvent>) =>
  validators.flatMap((v) => v(r, e))

const checks: ReadonlyArray<Check> = [
  {
    id: "basic-response",
    streaming: false,
    body: (model) => ({ model, input: [{ type: "message", role: "user", content: "Say hello in exactly 3 words." }] }),
    reply: (t) => t.kit.text,
    validate: all(hasOutput, completed),
    sent: (_, body) => expect(body).toContain("Say hello in exactly 3 words.")
  },
  {
    id: "streaming-response",
    streaming: true,
    body: (model) => ({ model, input: [{ type: "message", role: "user", content: "Count from 1 to 5." }] }),
    reply: (t) => t.kit.textStream,
    validate: all(streamed, completed),
    sent: (t, body) => {
      expect(body).toContain("Count from 1 to 5.")
      if (t.name !== "gemini") expect(JSON.parse(body)["stream"]).toBe(true)
    }
  },
  {
    id: "system-prompt",
    streaming: false,
    body: (model) => ({
      model,
      input: [
        { type: "message", role: "system", content: "You are a pirate. Always respond in pirate speak." },
        { type: "message", role: "user", content: "Say hello." }
      ]
    }),
    reply: (t) => t.kit.text,
    validate: all(hasOutput, completed),
    sent: (_, body) => expect(body).toContain("You are a pirate. Always respond in pirate speak.")
  },
  {
    id: "tool-calling",
    streaming: false,
    body: (model) => ({ model, input: [weatherQuestion], tools: [weatherTool] }),
    reply: (t) => t.kit.toolCall,
    validate: all(hasOutput, hasItem("function_call")),
    sent: (_, body) => expect(body).toContain("get_weather")
  },
  {
    id: "tool-calling-streaming",
    streaming: true,
    body: (model) => ({ model, input: [weatherQuestion], tools: [weatherTool] }),
    reply: (t) => t.kit.parallelToolStream,
    validate: all(streamed, functionCallEvents),
    sent: (_, body) => expect(body).toContain("get_weather")
  },
  {
    id: "image-input",
    streaming: false,
    body: (model) => ({
      model,
      input: [{
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What do you see in this image? Answer in one sentence." },
          { type: "input_image", image_url: `data:image/png;base64,${heart}` }
        ]
      }]
    }),
    reply: (t) => t.kit.text,
    validate: all(hasOutput, completed),
    sent: (_, body) => expect(body).toContain(heart)
  },
  {
    id: "multi-turn",
    streaming: false,
    body: (model) => ({
      model,
      input: [
        { type: "message", role: "user", content: "My name is Alice." },
        { type: "message", role: "assistant", content: "Hello Alice! Nice to meet you. How can I help you today?" },
        { type: "message", role: "user", content: "What is my name?" }
      ]
    }),
    reply: (t) => t.kit.text,
    validate: all(hasOutput, completed),
    sent: (_, body) => {
      const order = ["My name is Alice.", "Hello Alice! Nice to meet you.", "What is my name?"].map((text) => body.indexOf(text))
      expect(order.every((at) => at >= 0)).toBe(true)
      expect([...order].sort((a, b) => a - b)).toEqual(order)
    }
  }
]

describe("Open Responses compliance checks on every provider", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams) })

  it("the published document is read: its stream event union and ResponseResource schema reject what they should", () => {
    expect(streamingEventTypes()).toEqual(expect.arrayContaining(["response.created", "response.completed", "response.function_call_arguments.delta", "error"]))
    expect(validateResponseResource({ id: "resp_1", object: "response" })).not.toEqual([])
    expect(validateStreamingEvent({ type: "response.output_text.delta", sequence_number: 1 })).not.toEqual([])
    expect(validateStreamingEvent({ type: "response.made_up" })).not.toEqual([])
  })

  describe.each(responsesTargets)("$name", (target) => {
    it.each(checks.map((check) => [check.id, check] as const))("%s", async (_, check) => {
      const upstream = gw.upstreams[target.name]
      upstream.reply(check.reply(target))
      const res = await fetch(`${gw.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${gw.key.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ ...check.body(target.model), stream: check.streaming })
      })
      const text = await res.text()
      expect(res.status, text).toBe(200)
      let response: Record<string, any>
      let events: Array<StreamEvent> = []
      if (check.streaming) {
        expect(res.headers.get("content-type")).toContain("text/event-stream")
        events = parseEvents(text)
        for (const { event, data } of events) {
          expect(validateStreamingEvent(data), JSON.stringify(data)).toEqual([])
          expect(event).toBe(data["type"])
        }
        const final = events.filter((e) => ["response.completed", "response.failed", "response.incomplete"].includes(e.data["type"]))
        expect(final).toHaveLength(1)
        response = final[0]!.data["response"]
      } else {
        response = JSON.parse(text) as Record<string, any>
      }
      expect(validateResponseResource(response), JSON.stringify(response)).toEqual([])
      expect(check.validate(response, events)).toEqual([])
      expect(response["model"]).toBe(target.model)
      expect(upstream.requests).toHaveLength(1)
      // What the runner cannot see: the stored copy is a valid response object too.
      const stored = await fetch(`${gw.url}/v1/responses/${String(response["id"])}`, { headers: gw.auth() })
      expect(stored.status).toBe(200)
      expect(validateResponseResource(await stored.json())).toEqual([])
      check.sent(target, JSON.stringify(upstream.requests[0]!.body))
    })
  })
})
