import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { dataUrlPayloadStart, isBase64From } from "../../src/Domain/InlineData.ts"

describe("inline base64", () => {
  it.prop("any bytes, base64-encoded (padded or not), are accepted", { bytes: Schema.Uint8Array }, ({ bytes }) => {
    const padded = Buffer.from(bytes).toString("base64")
    if (padded.length === 0) return isBase64From(padded, 0) === false
    return isBase64From(padded, 0) && isBase64From(padded.replace(/=+$/, ""), 0) && isBase64From(`data:x;base64,${padded}`, 14)
  })

  it.prop("a character outside the alphabet anywhere is refused", { text: Schema.String, at: Schema.Int }, ({ text, at }) => {
    const encoded = Buffer.from(text).toString("base64").replace(/=+$/, "") || "QQ"
    const position = Math.abs(at) % (encoded.length + 1)
    return !isBase64From(`${encoded.slice(0, position)}@${encoded.slice(position)}`, 0)
  })

  it("lengths that cannot be whole bytes, stray padding and line breaks", () => {
    expect(isBase64From("abcde", 0)).toBe(false)
    expect(isBase64From("ab=c", 0)).toBe(false)
    expect(isBase64From("abc===", 0)).toBe(false)
    expect(isBase64From("YWJj\r\nZGVm", 0)).toBe(true)
  })

  it("finds the payload of base64 data URLs only", () => {
    expect(dataUrlPayloadStart("data:image/png;base64,AAAA")).toBe(22)
    expect(dataUrlPayloadStart("DATA:image/png;name=a.png;base64,AAAA")).toBe(33)
    expect(dataUrlPayloadStart("data:image/png,AAAA")).toBe(-1)
    expect(dataUrlPayloadStart("https://example.test/a.png")).toBe(-1)
  })
})
