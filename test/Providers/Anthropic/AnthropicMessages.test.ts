import { describe, expect, it } from "@effect/vitest"
import { collapse, fixture, fixtureBytes } from "../../Services/Files/Extraction/FixtureManifest.ts"
import { rejection, wire } from "./AnthropicSupport.ts"

const base64 = (path: string) => Buffer.from(fixtureBytes(path)).toString("base64")
const dataUrl = (path: string) => `data:${fixture(path).mime};base64,${base64(path)}`
const userParts = (...parts: Array<Record<string, unknown>>) => ({ messages: [{ role: "user", content: parts }] })

describe("Anthropic messages: system, turns, alternation", () => {
  it("hoists system and developer messages to the top-level system, in order", () => {
    const body = wire({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] }
      ]
    })
    expect(body.system).toEqual([{ type: "text", text: "Be brief." }, { type: "text", text: "Answer in French." }])
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }])
  })

  it("sends no system field when there is no system message", () => {
    expect(wire({}).system).toBeUndefined()
  })

  it("merges consecutive same-role turns so user and assistant alternate", () => {
    const body = wire({
      messages: [
        { role: "user", content: "one" },
        { role: "system", content: "between" },
        { role: "user", content: "two" },
        { role: "assistant", content: "a" },
        { role: "assistant", content: [{ type: "text", text: "b" }] },
        { role: "user", content: "three" }
      ]
    })
    expect(body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
    expect(body.messages[0].content).toEqual([{ type: "text", text: "one" }, { type: "text", text: "two" }])
    expect(body.messages[1].content).toEqual([{ type: "text", text: "a" }, { type: "text", text: "b" }])
  })

  it("drops empty text (Anthropic rejects empty text blocks) and refuses a conversation left empty", () => {
    const body = wire({ messages: [{ role: "user", content: "" }, { role: "assistant", content: "ok" }, { role: "user", content: "go" }] })
    expect(body.messages).toEqual([
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
      { role: "user", content: [{ type: "text", text: "go" }] }
    ])
    const error = rejection({ messages: [{ role: "system", content: "only a system prompt" }] })
    expect(error.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages" })
  })

  it("turns assistant tool_calls into tool_use blocks with the same ids and parsed input", () => {
    const body = wire({
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: "Checking.",
          reasoning_content: "The user wants weather.",
          tool_calls: [
            { id: "toolu_01A", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
            { id: "toolu_01B", type: "function", function: { name: "get_time", arguments: "" } }
          ]
        }
      ]
    })
    // reasoning_content is not sent back: Anthropic needs the signature the client never had.
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_01B", name: "get_time", input: {} }
      ]
    })
  })

  it("refuses tool_call arguments that are not a JSON object, naming them", () => {
    const call = (args: string) => ({
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "f", arguments: args } }] }
      ]
    })
    expect(rejection(call("{not json")).reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[1].tool_calls[0].function.arguments" })
    expect(rejection(call("[1,2]")).reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[1].tool_calls[0].function.arguments" })
  })

  it("puts tool results in one user turn, results before text, and sends an empty result without content", () => {
    const body = wire({
      messages: [
        { role: "user", content: "weather and time?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "toolu_01A", type: "function", function: { name: "get_weather", arguments: "{}" } },
            { id: "toolu_01B", type: "function", function: { name: "get_time", arguments: "{}" } }
          ]
        },
        { role: "tool", tool_call_id: "toolu_01A", content: "18°C" },
        { role: "user", content: "and be quick" },
        { role: "tool", tool_call_id: "toolu_01B", content: "" }
      ]
    })
    expect(body.messages).toHaveLength(3)
    expect(body.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01A", content: "18°C" },
        { type: "tool_result", tool_use_id: "toolu_01B" },
        { type: "text", text: "and be quick" }
      ]
    })
  })
})

describe("Anthropic messages: images and files", () => {
  it("sends a data-URL image as a base64 source and an https image as a url source", () => {
    for (const path of ["images/photo.png", "images/photo.jpg", "images/photo.webp"]) {
      const body = wire(userParts({ type: "image_url", image_url: { url: dataUrl(path) } }))
      expect(body.messages[0].content[0]).toEqual({ type: "image", source: { type: "base64", media_type: fixture(path).mime, data: base64(path) } })
    }
    const url = "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"
    const body = wire(userParts({ type: "text", text: "what is it?" }, { type: "image_url", image_url: { url } }))
    expect(body.messages[0].content).toEqual([{ type: "text", text: "what is it?" }, { type: "image", source: { type: "url", url } }])
  })

  it("refuses an image format Anthropic cannot read and a malformed image URL, naming the part", () => {
    const bmp = rejection(userParts({ type: "text", text: "x" }, { type: "image_url", image_url: { url: dataUrl("bad/image.bmp") } }))
    expect(bmp.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[1].image_url.url" })
    expect(bmp.reason.message).toContain(fixture("bad/image.bmp").mime)
    const notBase64 = rejection(userParts({ type: "image_url", image_url: { url: "data:image/png,rawbytes" } }))
    expect(notBase64.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[0].image_url.url" })
    const ftp = rejection(userParts({ type: "image_url", image_url: { url: "ftp://example.com/a.png" } }))
    expect(ftp.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[0].image_url.url" })
  })

  it("sends a PDF file as a document block with a base64 source, titled with its name", () => {
    const pdf = fixture("documents/report.pdf")
    for (const file of [
      { filename: "report.pdf", file_data: base64(pdf.path) },
      { file_data: dataUrl(pdf.path) },
      { filename: "upload.bin", mime_type: pdf.mime, file_data: base64(pdf.path) }
    ]) {
      const block = wire(userParts({ type: "file", file })).messages[0].content[0]
      expect(block.type).toBe("document")
      expect(block.source).toEqual({ type: "base64", media_type: "application/pdf", data: base64(pdf.path) })
      expect(block.title).toBe(file.filename)
    }
  })

  it("sends text files as document blocks with a text source, decoding UTF-8 and UTF-16", () => {
    for (const path of ["documents/notes.txt", "documents/notes-utf16le.txt", "documents/data.json"]) {
      const entry = fixture(path)
      const block = wire(userParts({ type: "file", file: { filename: path.split("/").pop(), file_data: base64(path) } })).messages[0].content[0]
      expect(block.source.type).toBe("text")
      expect(block.source.media_type).toBe("text/plain")
      for (const token of entry.expected_tokens ?? []) expect(collapse(block.source.data)).toContain(token)
    }
  })

  it("refuses other file types, audio and video with 415 naming the part", () => {
    const docx = fixture("documents/report.docx")
    const file = rejection(userParts({ type: "text", text: "x" }, { type: "file", file: { filename: "report.docx", file_data: base64(docx.path) } }))
    expect(file.reason).toMatchObject({ _tag: "UnsupportedMediaType", param: "messages[0].content[1]" })
    const audio = rejection(userParts({ type: "input_audio", input_audio: { data: base64("audio/speech.wav"), format: "wav" } }))
    expect(audio.reason).toMatchObject({ _tag: "UnsupportedMediaType", param: "messages[0].content[0]" })
    const video = rejection(userParts({ type: "input_video", input_video: { url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" } }))
    expect(video.reason).toMatchObject({ _tag: "UnsupportedMediaType", param: "messages[0].content[0]" })
  })

  it("refuses a file that was not resolved to inline data, and a text file that is not text", () => {
    const unresolved = rejection(userParts({ type: "file", file: { file_id: "file-abc" } }))
    expect(unresolved.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[0]" })
    const binary = rejection(userParts({ type: "file", file: { filename: "notes.txt", file_data: base64("images/photo.png") } }))
    expect(binary.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[0].file.file_data" })
  })
})
