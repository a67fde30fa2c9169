import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeChatRequest, decodeChatRequestBySchema } from "../../src/Domain/ChatRequestDecoder.ts"
import { decodePlainChatRequest } from "../../src/Domain/PlainChatRequest.ts"

// A fixed-seed generator (mulberry32), so a failure reproduces.
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const messagePool: ReadonlyArray<unknown> = [
  { role: "system", content: "Be brief." },
  { role: "developer", content: "Be brief.", name: "ops" },
  { role: "user", content: "Hello" },
  { role: "user", content: "Hi", name: "ann", extra_key: 1 },
  { role: "user", content: "" },
  { role: "assistant", content: "Earlier answer" },
  { role: "assistant", content: "x", refusal: null, tool_calls: null, reasoning_content: null },
  { role: "tool", content: "42", tool_call_id: "call_1" },
  { role: "tool", content: "42", tool_call_id: "call_1", name: "calc" },
  // Shapes the plain path must leave to the schema decoder:
  { role: "user", content: [{ type: "text", text: "parts" }] },
  { role: "assistant", content: "x", refusal: "no" },
  { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] },
  { role: "assistant", content: "x", reasoning_content: "thought" },
  { role: "tool", content: "42" },
  { role: "tool", content: "42", tool_call_id: "" },
  { role: "user", content: "x", name: null },
  { role: "user", content: 5 },
  { role: "robot", content: "x" },
  "not an object",
  null
]

const pools: Record<string, ReadonlyArray<unknown>> = {
  model: ["gpt-test", "", 3],
  stream: [true, false, null, "yes"],
  stream_options: [null, { include_usage: true }, { include_usage: null }, { include_usage: "x" }, { foo: 1 }, "x"],
  max_tokens: [null, 1, 16, 0, 1.5, "3", 2 ** 60],
  max_completion_tokens: [null, 16, 32, -1],
  temperature: [null, 0, 0.7, 2, 2.5, -1, "0.5"],
  top_p: [null, 0, 1, 0.5, 1.5],
  n: [null, 1, 2, 128, 129, 0],
  stop: [null, "x", [], ["a", "b"], ["a", "b", "c", "d", "e"], [1]],
  presence_penalty: [null, 0, -2, 2, 2.1],
  frequency_penalty: [null, 0.5, -2.5],
  seed: [null, 42, -1, 1.5],
  parallel_tool_calls: [null, true, "x"],
  reasoning_effort: [null, "low", "max"],
  logprobs: [null, true, false],
  top_logprobs: [null, 0, 5, 21],
  metadata: [null, { a: "b" }, { a: 1 }, []],
  user: [null, "u", 5],
  safety_identifier: [null, "s"],
  tools: [null, [{ type: "function", function: { name: "f", parameters: { type: "object" } } }]],
  response_format: [null, { type: "text" }],
  tool_choice: [null, "auto"],
  store: [true],
  custom_field: [{ nested: [1, 2] }]
}

const generate = (random: () => number): Record<string, unknown> => {
  const pick = <A>(list: ReadonlyArray<A>): A => list[Math.floor(random() * list.length)]!
  const body: Record<string, unknown> = {}
  for (const [key, values] of Object.entries(pools)) {
    // The model is almost always there; other fields appear now and then, mostly valid.
    if (random() < (key === "model" ? 0.95 : 0.1)) body[key] = pick(values)
  }
  if (random() < 0.95) {
    const count = Math.floor(random() * 4)
    body["messages"] = Array.from({ length: count }, () => pick(random() < 0.8 ? messagePool.slice(0, 9) : messagePool))
  }
  return body
}

describe("plain chat requests", () => {
  it("take the plain path only where the schema decoder agrees, and build the same value", () => {
    const random = rng(20261121)
    let plain = 0
    for (let i = 0; i < 10_000; i++) {
      const body = generate(random)
      const fast = decodePlainChatRequest(body)
      if (fast === undefined) continue
      plain++
      const slow = Effect.runSync(Effect.result(decodeChatRequestBySchema(body)))
      expect(slow._tag, JSON.stringify(body)).toBe("Success")
      if (slow._tag === "Success") expect(fast, JSON.stringify(body)).toEqual(slow.success)
    }
    // The comparison above means something only if the plain path was taken often.
    expect(plain).toBeGreaterThan(500)
  })

  it("decodes the usual request without the schema pass, with the schema's result", () => {
    const body = {
      model: "gpt-test",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2
    }
    const fast = decodePlainChatRequest(body)
    expect(fast).toBeDefined()
    expect(fast).toEqual(Effect.runSync(decodeChatRequestBySchema(body)))
    expect(Effect.runSync(decodeChatRequest(body))).toEqual(fast)
  })

  it("leaves every error to the schema decoder, which names the field", () => {
    const body = { model: "gpt-test", messages: [{ role: "user", content: "x" }], temperature: 0.5, top_p: 0.5 }
    expect(decodePlainChatRequest(body)).toBeUndefined()
    const result = Effect.runSync(Effect.result(decodeChatRequest(body)))
    expect(result._tag === "Failure" && result.failure.reason).toMatchObject({ _tag: "InvalidRequest", param: "top_p" })
  })
})
