import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { badTextPath } from "../../src/Http/JsonBody.ts"
import { checkRequestTarget } from "../../src/Http/RequestGuard.ts"

describe("request targets", () => {
  it("passes ordinary and well-escaped targets", () => {
    for (const url of ["/v1/chat/completions", "/v1/models/org%2Fmodel", "/v1/files?after=file-1&limit=10", "/v1/models/caf%C3%A9"]) {
      expect(checkRequestTarget(url)).toBeUndefined()
    }
  })

  it("refuses malformed escapes and escaped control characters", () => {
    for (const url of ["/v1/files/%", "/v1/files/%G0", "/v1/files/%E0%A4%A", "/x?a=%00", "/x/%7F", "/x/%0d%0a"]) {
      expect(checkRequestTarget(url)?.reason).toMatchObject({ _tag: "InvalidRequest", code: "invalid_url" })
    }
  })

  it.prop("a target that decodes without control characters is routed", { text: Schema.String }, ({ text }) => {
    // Lone surrogates cannot be URL-encoded at all; a client never sends them.
    const safe = text.replace(/[\uD800-\uDFFF]/g, "").replace(/[\u0000-\u001f\u007f]/g, "")
    return checkRequestTarget(`/v1/models/${encodeURIComponent(safe)}`) === undefined
  })
})

describe("NUL and unpaired surrogates in a JSON body", () => {
  it("names the first string or key that holds one, at any depth", () => {
    expect(badTextPath({ user: "ok \ud83d\ude00", model: "m\ud800" })).toBe("model")
    expect(badTextPath({ input: ["fine", "\udc00 first"] })).toBe("input[1]")
    expect(badTextPath({ model: "m", messages: [{ role: "user", content: "a\u0000" }] })).toBe("messages[0].content")
    expect(badTextPath({ metadata: { "k\u0000": 1 } })).toBe("metadata.k\u0000")
    let deep: unknown = "x\u0000"
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(badTextPath({ deep: deep as object })).toBe(`deep${"[0]".repeat(100_000)}`)
    expect(badTextPath({ fine: ["a", { b: "c" }] })).toBeUndefined()
  })
})
