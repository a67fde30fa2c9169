import { describe, expect, it } from "@effect/vitest"
import { openAiCompletion } from "../support/OpenAiFixtures.ts"
import { useGateway } from "../support/UseGateway.ts"

const user = (content: unknown) => ({ role: "user", content })
const base = { model: "gpt-test", messages: [user("hi")] }

/** Every 4.1 violation is a 400 whose `param` (and message) names the field. */
const violations: ReadonlyArray<[string, Record<string, unknown>, string]> = [
  ["more than 4 stop sequences", { stop: ["a", "b", "c", "d", "e"] }, "stop"],
  ["top_logprobs above 20", { logprobs: true, top_logprobs: 21 }, "top_logprobs"],
  ["top_logprobs below 0", { logprobs: true, top_logprobs: -1 }, "top_logprobs"],
  ["top_logprobs without logprobs", { top_logprobs: 2 }, "top_logprobs"],
  ["logit_bias above 100", { logit_bias: { "50256": 101 } }, "logit_bias.50256"],
  ["logit_bias below -100", { logit_bias: { "50256": -100.5 } }, "logit_bias.50256"],
  ["stream_options without stream", { stream_options: { include_usage: true } }, "stream_options"],
  ["temperature and top_p together", { temperature: 0.5, top_p: 0.5 }, "top_p"],
  ["n below 1", { n: 0 }, "n"],
  ["an unknown role", { messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
  ["a tool message without tool_call_id", { messages: [user("x"), { role: "tool", content: "42" }] }, "messages[1].tool_call_id"],
  ["empty messages", { messages: [] }, "messages"],
  ["an unknown content part type", { messages: [user([{ type: "hologram", hologram: {} }])] }, "messages[0].content[0].type"],
  ["temperature above 2", { temperature: 2.5 }, "temperature"],
  ["top_p above 1", { top_p: 1.5 }, "top_p"],
  ["presence_penalty out of range", { presence_penalty: -3 }, "presence_penalty"],
  ["frequency_penalty out of range", { frequency_penalty: 2.1 }, "frequency_penalty"],
  ["a non-integer seed", { seed: 1.5 }, "seed"],
  ["max_completion_tokens of 0", { max_completion_tokens: 0 }, "max_completion_tokens"],
  ["an unknown reasoning_effort", { reasoning_effort: "extreme" }, "reasoning_effort"],
  ["tool_choice naming an undefined function", { tools: [{ type: "function", function: { name: "a" } }], tool_choice: { type: "function", function: { name: "b" } } }, "tool_choice.function.name"],
  ["a missing model", { model: undefined }, "model"],
  ["an image part without url", { messages: [user([{ type: "image_url", image_url: {} }])] }, "messages[0].content[0].image_url.url"]
]

describe("chat request contract", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      files: { max_inline_mb: 1 },
      providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "sk-up" }],
      models: [
        { id: "gpt-test", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }], capabilities: { tools: true, logprobs: true, file_input: true, vision: true } },
        { id: "text-only", kind: "chat", deployments: [{ provider: "openai", model: "gpt-3.5" }] },
        { id: "embed", kind: "embedding", deployments: [{ provider: "openai", model: "text-embedding-3-small" }] }
      ]
    })
  })
  const { upstream } = gw
  const post = (body: Record<string, unknown>) => gw.postJson("/v1/chat/completions", body)

  for (const [name, patch, param] of violations) {
    it(`400 for ${name}, naming ${param}`, async () => {
      const res = await post({ ...base, ...patch })
      expect(res.status).toBe(400)
      const body = (await res.json()) as any
      expect(body.error.type).toBe("invalid_request_error")
      expect(body.error.param).toBe(param)
      expect(body.error.message).toContain(param.split(".")[0]!.split("[")[0]!)
      expect(upstream.requests).toHaveLength(0)
    })
  }

  const gates: ReadonlyArray<[string, Record<string, unknown>, number, string]> = [
    ["audio to a model without audio input", { model: "gpt-test", messages: [user([{ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }])] }, 415, "messages[0].content[0]"],
    ["a file to a model without file input", { model: "text-only", messages: [user([{ type: "file", file: { file_data: "aGk=", filename: "a.txt" } }])] }, 415, "messages[0].content[0]"],
    ["video to a model without video input", { model: "gpt-test", messages: [user([{ type: "input_video", input_video: { url: "https://youtu.be/dQw4w9WgXcQ" } }])] }, 415, "messages[0].content[0]"],
    ["an image to a model without vision", { model: "text-only", messages: [user([{ type: "image_url", image_url: { url: "https://example.com/a.png" } }])] }, 400, "messages[0].content[0]"],
    ["tools to a model without tools", { model: "text-only", tools: [{ type: "function", function: { name: "f" } }] }, 400, "tools"],
    ["json_schema to a model without structured output", { model: "gpt-test", response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } } }, 400, "response_format"],
    ["logprobs to a model without them", { model: "text-only", logprobs: true }, 400, "logprobs"],
    ["file_id combined with file_data", { model: "gpt-test", messages: [user([{ type: "file", file: { file_id: "file-abc", file_data: "aGk=" } }])] }, 400, "messages[0].content[0].file.file_id"]
  ]
  for (const [name, body, status, param] of gates) {
    it(`${status} before any upstream call for ${name}`, async () => {
      const res = await post({ messages: [user("hi")], ...body })
      expect(res.status).toBe(status)
      const json = (await res.json()) as any
      expect(json.error.type).toBe("invalid_request_error")
      expect(json.error.param).toBe(param)
      expect(upstream.requests).toHaveLength(0)
    })
  }

  it("413 when inline file data passes the per-request budget (decoded size)", async () => {
    const data = Buffer.alloc(700 * 1024, 1).toString("base64")
    const res = await post({ model: "gpt-test", messages: [user([{ type: "file", file: { file_data: data, filename: "a.bin" } }, { type: "file", file: { file_data: data, filename: "b.bin" } }])] })
    expect(res.status).toBe(413)
    expect(((await res.json()) as any).error.param).toBe("messages[0].content[1].file.file_data")
    expect(upstream.requests).toHaveLength(0)
  })

  it("400 when the model is not a chat model", async () => {
    const res = await post({ model: "embed", messages: [user("hi")] })
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error.param).toBe("model")
  })

  it("passes every 4.1 field through to an OpenAI upstream", async () => {
    upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
    const res = await post({
      model: "gpt-test",
      messages: [user("hi")],
      temperature: 0.3,
      n: 2,
      stop: "END",
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      seed: 7,
      response_format: { type: "json_object" },
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
      reasoning_effort: "high",
      logprobs: true,
      top_logprobs: 3,
      logit_bias: { "50256": -100 },
      metadata: { team: "a" },
      user: "end-user-7",
      modalities: ["text"],
      store: false
    })
    expect(res.status).toBe(200)
    const sent = upstream.requests[0]!.body as Record<string, unknown>
    expect(sent).toMatchObject({
      model: "gpt-4o-mini",
      temperature: 0.3,
      n: 2,
      stop: ["END"],
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      seed: 7,
      response_format: { type: "json_object" },
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
      logprobs: true,
      top_logprobs: 3,
      logit_bias: { "50256": -100 },
      user: "end-user-7",
      modalities: ["text"],
      store: false
    })
    // Not a reasoning model: spec 4.1 says reasoning_effort is ignored.
    expect(sent["reasoning_effort"]).toBeUndefined()
  })
})
