import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { checkCapabilities, decodedSize, maxVideosPerRequest } from "../../src/Domain/ChatCapabilityGate.ts"
import { decodeChatRequest } from "../../src/Domain/ChatRequestDecoder.ts"
import { ModelConfig } from "../../src/Domain/GatewayConfig.ts"

const videoModel = Schema.decodeUnknownSync(ModelConfig)({
  id: "video",
  kind: "chat",
  deployments: [{ provider: "g", model: "m" }],
  capabilities: { video_input: true }
})
const request = (parts: ReadonlyArray<unknown>) =>
  Effect.runSync(decodeChatRequest({ model: "video", messages: [{ role: "user", content: parts }] }))
const limits = { maxInlineFileBytes: 50 * 1024 * 1024 }

describe("capability gate", () => {
  it("measures decoded base64 sizes without decoding, with or without a data-URL prefix", () => {
    const bytes = Buffer.alloc(1000, 9)
    expect(decodedSize(bytes.toString("base64"))).toBe(1000)
    expect(decodedSize(`data:video/mp4;base64,${bytes.toString("base64")}`)).toBe(1000)
    expect(decodedSize(Buffer.alloc(1001).toString("base64"))).toBe(1001)
    expect(decodedSize(Buffer.alloc(1002).toString("base64"))).toBe(1002)
  })

  it("allows 5 videos per request and refuses the sixth, naming it", () => {
    const video = { type: "input_video", input_video: { url: "https://youtu.be/dQw4w9WgXcQ" } }
    expect(checkCapabilities(request(Array(maxVideosPerRequest).fill(video)), videoModel, limits)).toBeUndefined()
    const error = checkCapabilities(request(Array(maxVideosPerRequest + 1).fill(video)), videoModel, limits)
    expect(error?.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[5]" })
  })

  it("refuses a video with both or neither of url and data", () => {
    const both = request([{ type: "input_video", input_video: { url: "https://youtu.be/dQw4w9WgXcQ", data: "AAAA", format: "mp4" } }])
    expect(checkCapabilities(both, videoModel, limits)?.reason).toMatchObject({ _tag: "InvalidRequest", param: "messages[0].content[0].input_video" })
    const neither = request([{ type: "input_video", input_video: { format: "mp4" } }])
    expect(checkCapabilities(neither, videoModel, limits)?.reason._tag).toBe("InvalidRequest")
  })
})
