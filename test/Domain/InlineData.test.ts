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

describe("inline base64, as one pass", () => {
  // The former check, a regular expression that was quadratic on long runs of line breaks: the
  // one-pass scanner must give the same verdict on every input.
  const former = (text: string, start: number): boolean => {
    const body = /[A-Za-z0-9+/\r\n]*(={0,2})[\r\n]*$/y
    body.lastIndex = start
    const match = body.exec(text)
    if (match === null) return false
    if (text.indexOf("\n", start) !== -1 || text.indexOf("\r", start) !== -1) return true
    const padding = match[1]!.length
    const symbols = text.length - start - padding
    if (symbols === 0) return false
    return padding === 0 ? symbols % 4 !== 1 : (symbols + padding) % 4 === 0
  }
  const alphabet = ["A", "b", "9", "+", "/", "=", "\n", "\r", "!", " "]
  const Text = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: alphabet.length - 1 })))

  it.prop("agrees with the former regular expression on every short input", { codes: Text, start: Schema.Int }, ({ codes, start }) => {
    const text = codes.map((c) => alphabet[c]).join("")
    const from = Math.abs(start) % (text.length + 1)
    return isBase64From(text, from) === former(text, from)
  })

  it("reads a payload with 40,000 line breaks before a stray character (the quadratic case)", () => {
    const text = `data:image/png;base64,AAAA${"\n".repeat(40_000)}!`
    expect(isBase64From(text, dataUrlPayloadStart(text))).toBe(false)
    expect(isBase64From(`AAAA${"\n".repeat(40_000)}`, 0)).toBe(true)
    expect(isBase64From(`AA==${"\n".repeat(40_000)}!`, 0)).toBe(false)
  })

  it("reads a 10 MB payload to its last character", () => {
    const payload = Buffer.alloc(7.5 * 1024 * 1024, 7).toString("base64")
    expect(isBase64From(payload, 0)).toBe(true)
    expect(isBase64From(`${payload.slice(0, -1)}!`, 0)).toBe(false)
    expect(isBase64From(`${payload.slice(0, 1000)}=${payload.slice(1000)}`, 0)).toBe(false)
  })
})
