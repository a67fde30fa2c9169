import { describe, expect, it } from "@effect/vitest"
import { geminiConversation, replayedCallSignature } from "../../../src/Providers/Gemini/GeminiContents.ts"
import { chatRequest, corpus, refusal } from "./GeminiTestSupport.ts"

const conversation = (messages: ReadonlyArray<unknown>) => geminiConversation(chatRequest({ messages }).messages)
const userParts = (content: ReadonlyArray<unknown>) => conversation([{ role: "user", content }]).contents[0]!.parts
const refusedParts = (content: ReadonlyArray<unknown>) => refusal(() => userParts(content))

describe("geminiConversation: roles and turns", () => {
  it("maps user / assistant to user / model and system and developer messages to systemInstruction", () => {
    expect(
      conversation([
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Bonjour" },
        { role: "user", content: "Weather?" }
      ])
    ).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "Answer in French." }] },
      contents: [
        { role: "user", parts: [{ text: "Hi" }] },
        { role: "model", parts: [{ text: "Bonjour" }] },
        { role: "user", parts: [{ text: "Weather?" }] }
      ]
    })
  })

  it("has no systemInstruction without system messages", () => {
    expect(conversation([{ role: "user", content: "Hi" }])).toEqual({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] })
  })

  it("merges consecutive turns of one role", () => {
    expect(
      conversation([
        { role: "user", content: "one" },
        { role: "user", content: [{ type: "text", text: "two" }, { type: "text", text: "three" }] },
        { role: "assistant", content: "a" },
        { role: "assistant", content: "b" }
      ]).contents
    ).toEqual([
      { role: "user", parts: [{ text: "one" }, { text: "two" }, { text: "three" }] },
      { role: "model", parts: [{ text: "a" }, { text: "b" }] }
    ])
  })

  it("refuses a conversation of system messages only", () => {
    expect(refusal(() => conversation([{ role: "system", content: "Be brief." }]))).toMatchObject({ tag: "InvalidRequest", param: "messages" })
  })
})

describe("geminiConversation: tool calls and results", () => {
  const history = [
    { role: "user", content: "Weather and time in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
        { id: "call_b", type: "function", function: { name: "get_time", arguments: "" } }
      ]
    },
    { role: "tool", tool_call_id: "call_a", content: "18C, cloudy" },
    { role: "tool", tool_call_id: "call_b", content: [{ type: "text", text: "14:05" }] }
  ]

  it("replays calls as functionCall parts (signature on the first) and answers them in one user turn", () => {
    expect(conversation(history).contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" }, id: "call_a" }, thoughtSignature: replayedCallSignature },
          { functionCall: { name: "get_time", args: {}, id: "call_b" } }
        ]
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", id: "call_a", response: { output: "18C, cloudy" } } },
          { functionResponse: { name: "get_time", id: "call_b", response: { output: "14:05" } } }
        ]
      }
    ])
  })

  it("keeps assistant text before its calls", () => {
    const parts = conversation([
      { role: "user", content: "x" },
      { role: "assistant", content: "Let me check.", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "ok" }
    ]).contents[1]!.parts
    expect(parts[0]).toEqual({ text: "Let me check." })
    expect(parts[1]).toMatchObject({ functionCall: { name: "f", args: {} } })
  })

  it("refuses a tool message whose id answers no earlier call, naming it", () => {
    expect(refusal(() => conversation([...history, { role: "tool", tool_call_id: "call_zzz", content: "?" }]))).toMatchObject({
      tag: "InvalidRequest",
      param: "messages[4].tool_call_id"
    })
  })

  it("refuses a tool message that answers a call made only later", () => {
    expect(
      refusal(() =>
        conversation([
          { role: "user", content: "x" },
          { role: "tool", tool_call_id: "c1", content: "early" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }
        ])
      )
    ).toMatchObject({ param: "messages[1].tool_call_id" })
  })

  it("refuses call arguments that are not a JSON object", () => {
    const bad = (args: string) =>
      refusal(() => conversation([{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }] }]))
    expect(bad("{city:")).toMatchObject({ param: "messages[1].tool_calls[0].function.arguments" })
    expect(bad("[1,2]")).toMatchObject({ param: "messages[1].tool_calls[0].function.arguments" })
  })
})

describe("geminiConversation: images", () => {
  const png = corpus("images/photo.png")
  const jpeg = corpus("images/photo.jpg")

  it("sends image data URLs as inlineData with their MIME type", () => {
    expect(
      userParts([
        { type: "text", text: "Compare" },
        { type: "image_url", image_url: { url: `data:${png.mime};base64,${png.base64}` } },
        { type: "image_url", image_url: { url: `data:${jpeg.mime};base64,${jpeg.base64}`, detail: "low" } }
      ])
    ).toEqual([{ text: "Compare" }, { inlineData: { mimeType: png.mime, data: png.base64 } }, { inlineData: { mimeType: jpeg.mime, data: jpeg.base64 } }])
  })

  it("refuses image links for now (Gemini needs the bytes), naming the url", () => {
    expect(refusedParts([{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }])).toMatchObject({
      tag: "InvalidRequest",
      param: "messages[0].content[0].image_url.url"
    })
  })

  it("refuses a data URL that is not an image or not base64", () => {
    expect(refusedParts([{ type: "image_url", image_url: { url: `data:application/pdf;base64,${png.base64}` } }])).toMatchObject({
      param: "messages[0].content[0].image_url.url"
    })
    expect(refusedParts([{ type: "image_url", image_url: { url: "data:image/png,rawbytes" } }])).toMatchObject({
      param: "messages[0].content[0].image_url.url"
    })
  })
})

describe("geminiConversation: audio", () => {
  it.each(["audio/speech.wav", "audio/speech.mp3", "audio/speech.flac", "audio/speech.ogg"])("sends %s as inlineData audio/<format>", (path) => {
    const audio = corpus(path)
    expect(userParts([{ type: "input_audio", input_audio: { data: audio.base64, format: audio.extension } }])).toEqual([
      { inlineData: { mimeType: `audio/${audio.extension}`, data: audio.base64 } }
    ])
  })

  it("refuses an audio format the model cannot read, naming format", () => {
    const audio = corpus("audio/speech.m4a")
    expect(refusedParts([{ type: "input_audio", input_audio: { data: audio.base64, format: audio.extension } }])).toMatchObject({
      param: "messages[0].content[0].input_audio.format"
    })
  })
})

describe("geminiConversation: video", () => {
  it("sends an accepted video link as fileData with the canonical watch URL", () => {
    expect(userParts([{ type: "input_video", input_video: { url: "https://youtu.be/dQw4w9WgXcQ?si=x" } }])).toEqual([
      { fileData: { fileUri: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" } }
    ])
  })

  it.each(["https://youtube.com.evil.io/watch?v=dQw4w9WgXcQ", "http://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://vimeo.com/1"])(
    "refuses the link %s, naming the url",
    (url) => {
      expect(refusedParts([{ type: "text", text: "x" }, { type: "input_video", input_video: { url } }])).toMatchObject({
        tag: "InvalidRequest",
        param: "messages[0].content[1].input_video.url"
      })
    }
  )

  it.each([
    ["video/clip.mp4", "mp4", "video/mp4"],
    ["video/clip.webm", "webm", "video/webm"],
    ["video/clip.mpeg", "mpeg", "video/mpeg"],
    ["video/clip.mov", "mov", "video/mov"]
  ])("sends %s as plain base64 with the MIME of its format", (path, format, mimeType) => {
    const video = corpus(path)
    expect(userParts([{ type: "input_video", input_video: { data: video.base64, format } }])).toEqual([{ inlineData: { mimeType, data: video.base64 } }])
  })

  it("takes the MIME type from a data URL prefix when there is no format (quicktime is mov)", () => {
    const mp4 = corpus("video/clip.mp4")
    const mov = corpus("video/clip.mov")
    expect(
      userParts([
        { type: "input_video", input_video: { data: `data:${mp4.mime};base64,${mp4.base64}` } },
        { type: "input_video", input_video: { data: `data:${mov.mime};base64,${mov.base64}`, format: "mov" } }
      ])
    ).toEqual([{ inlineData: { mimeType: "video/mp4", data: mp4.base64 } }, { inlineData: { mimeType: "video/mov", data: mov.base64 } }])
  })

  it("needs a format for plain base64, and refuses a format that contradicts the prefix", () => {
    const mp4 = corpus("video/clip.mp4")
    expect(refusedParts([{ type: "input_video", input_video: { data: mp4.base64 } }])).toMatchObject({ param: "messages[0].content[0].input_video.format" })
    expect(refusedParts([{ type: "input_video", input_video: { data: `data:video/mp4;base64,${mp4.base64}`, format: "webm" } }])).toMatchObject({
      param: "messages[0].content[0].input_video.format"
    })
    expect(refusedParts([{ type: "input_video", input_video: { data: `data:video/x-flv;base64,${mp4.base64}` } }])).toMatchObject({
      param: "messages[0].content[0].input_video.data"
    })
  })
})

describe("geminiConversation: files", () => {
  it("sends PDFs as application/pdf and text files as text/plain", () => {
    const pdf = corpus("documents/report.pdf")
    const notes = corpus("documents/notes.txt")
    const yaml = corpus("documents/config.yaml")
    expect(
      userParts([
        { type: "file", file: { filename: "report.pdf", file_data: `data:${pdf.mime};base64,${pdf.base64}` } },
        { type: "file", file: { filename: "notes.txt", file_data: notes.base64 } },
        { type: "file", file: { filename: "config", file_data: yaml.base64, mime_type: yaml.mime } }
      ])
    ).toEqual([
      { inlineData: { mimeType: "application/pdf", data: pdf.base64 } },
      { inlineData: { mimeType: "text/plain", data: notes.base64 } },
      { inlineData: { mimeType: "text/plain", data: yaml.base64 } }
    ])
  })

  it("refuses other document types and unknown types, naming the part", () => {
    const slides = corpus("documents/slides.pptx")
    const docx = corpus("documents/report.docx")
    expect(refusedParts([{ type: "file", file: { filename: "slides.pptx", file_data: slides.base64 } }])).toMatchObject({
      tag: "InvalidRequest",
      param: "messages[0].content[0].file"
    })
    expect(refusedParts([{ type: "text", text: "x" }, { type: "file", file: { file_data: docx.base64, mime_type: docx.mime } }])).toMatchObject({
      param: "messages[0].content[1].file"
    })
    expect(refusedParts([{ type: "file", file: { file_data: docx.base64 } }])).toMatchObject({ param: "messages[0].content[0].file" })
  })
})
