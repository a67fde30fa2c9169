import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import type { FilePart } from "../../../src/Domain/ChatContentPart.ts"
import type { ChatRequest } from "../../../src/Domain/ChatRequest.ts"
import { decodeChatRequest } from "../../../src/Domain/ChatRequestDecoder.ts"
import { ModelConfig } from "../../../src/Domain/GatewayConfig.ts"
import { makeMockProvider } from "../../../src/Providers/Mock/MockAdapter.ts"
import { mockCompletion, mockStreamEvents, quote, quotedLength, replyText, replyTokens } from "../../../src/Providers/Mock/MockReply.ts"
import { normalisedChunks } from "../../../src/Streams/ChatEventStream.ts"

const request = (body: Record<string, unknown>): ChatRequest =>
  Effect.runSync(decodeChatRequest({ model: "mock-chat", messages: [{ role: "user", content: "Hello" }], ...body }))

const model = Schema.decodeUnknownSync(ModelConfig)({ id: "mock-chat", kind: "chat", deployments: [{ provider: "mock", model: "mock-chat" }] })
const provider = Effect.runSync(makeMockProvider({ id: "mock", kind: "mock", base_url: "", timeouts: { connect_ms: 1, first_byte_ms: 1, idle_ms: 1, total_ms: 1 } }))
const target = { upstreamModel: "mock-chat", model }

/** A file part as the document resolver leaves it: the extracted text attached. */
const resolvedFile = (text: string): FilePart => ({
  type: "file",
  file: { file_id: "file-x" },
  resolved: { filename: "notes.txt", mimeType: "text/plain", data: "", text, pages: null, scanned: false, pageImages: [] }
})

describe("mock replies", () => {
  it("echo the last user message, after any earlier turns and the system prompt", () => {
    const req = request({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "First question" },
        { role: "assistant", content: "An answer" },
        { role: "user", content: "Second   question\nhere" }
      ]
    })
    expect(replyText(req)).toBe("mock reply to: Second question here")
  })

  it("quote at most quotedLength characters, marking the cut", () => {
    const long = "word ".repeat(60)
    expect(quote(long)).toHaveLength(quotedLength)
    expect(quote(long).endsWith("…")).toBe(true)
    expect(quote("short")).toBe("short")
  })

  it("say how many documents, characters of their text and images the last message carried", () => {
    const base = request({
      messages: [{ role: "user", content: [
        { type: "text", text: "Summarise" },
        { type: "file", file: { file_id: "file-x" } },
        { type: "image_url", image_url: { url: "https://example.com/a.png" } }
      ] }]
    })
    const withText: ChatRequest = {
      ...base,
      messages: [{ role: "user", content: [{ type: "text", text: "Summarise" }, resolvedFile("a".repeat(1234)), { type: "image_url", image_url: { url: "https://example.com/a.png" } }] }]
    }
    expect(replyText(withText)).toBe("mock reply to: Summarise (received 1 document with 1234 characters of text; received 1 image)")
    // Documents count as prompt tokens, as the text a provider without native documents receives.
    expect(mockCompletion(withText).usage.promptTokens).toBeGreaterThan(mockCompletion(base).usage.promptTokens + 300)
  })

  it("are deterministic, with n identical choices and usage counting every choice", () => {
    const req = request({ n: 3 })
    const completion = mockCompletion(req)
    expect(mockCompletion(req)).toEqual(completion)
    expect(completion.choices.map((c) => c.message.content)).toEqual(["mock reply to: Hello", "mock reply to: Hello", "mock reply to: Hello"])
    expect(completion.choices.map((c) => c.finish_reason)).toEqual(["stop", "stop", "stop"])
    expect(completion.usage).toEqual({ promptTokens: 6, completionTokens: 3 * replyTokens("mock reply to: Hello").length })
  })

  it("stop at max_completion_tokens with finish_reason length", () => {
    const completion = mockCompletion(request({ max_completion_tokens: 2 }))
    expect(completion.choices[0]!.message.content).toBe("mock reply ")
    expect(completion.choices[0]!.finish_reason).toBe("length")
    expect(completion.usage.completionTokens).toBe(2)
  })

  it("stream one delta per token, then the finish and the same usage as the non-streamed answer", () => {
    const req = request({ stream: true })
    const events = mockStreamEvents(req)
    expect(events.filter((e) => e._tag === "TextDelta").map((e) => (e._tag === "TextDelta" ? e.text : ""))).toEqual(["mock ", "reply ", "to: ", "Hello"])
    expect(events.at(-2)).toEqual({ _tag: "Finish", choice: 0, reason: "stop" })
    expect(events.at(-1)).toEqual({ _tag: "Usage", usage: mockCompletion(req).usage })
  })
})

describe("the mock chat provider", () => {
  it("completes and streams through the port, the stream normalising to the chunk sequence clients read", async () => {
    const completion = await Effect.runPromise(provider.complete(request({}), target))
    expect(completion.choices[0]!.message.content).toBe("mock reply to: Hello")
    const chunks = await Effect.runPromise(
      Stream.runCollect(normalisedChunks(provider.stream(request({ stream: true }), target), { id: "svc_x", created: 1, model: "mock-chat" }, true))
    )
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")
    expect(text).toBe("mock reply to: Hello")
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 })
  })
})
