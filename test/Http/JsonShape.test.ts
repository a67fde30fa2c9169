import { describe, expect, it } from "@effect/vitest"
import { bodyTooLarge, formatBytes } from "../../src/Http/BodyLimits.ts"
import { jsonShapeRefusal, spendEscapes } from "../../src/Http/JsonShape.ts"

const limits = { maxDepth: 4, maxObjectKeys: 3, maxArrayItems: 5, maxEscapes: 10, maxContainers: 1_000, maxValues: 1_000 }
const codeOf = (value: object) => {
  const refused = jsonShapeRefusal(value, limits)
  return refused === undefined ? undefined : { code: (refused.reason as { code?: string }).code, param: (refused.reason as { param?: string }).param }
}

describe("the shape of a JSON body", () => {
  it("names the limit and the path that broke it", () => {
    // Four levels of containers, the body itself included, pass; a fifth is refused.
    expect(codeOf({ a: { b: { c: { d: 1 } } } })).toBeUndefined()
    expect(codeOf({ a: { b: { c: { d: { e: 1 } } } } })).toEqual({ code: "json_too_deep", param: "a.b.c.d" })
    expect(codeOf({ m: [[[[1]]]] })).toEqual({ code: "json_too_deep", param: "m[0][0][0]" })
    expect(codeOf({ a: 1, b: 2, c: 3 })).toBeUndefined()
    expect(codeOf({ x: { a: 1, b: 2, c: 3, d: 4 } })).toEqual({ code: "json_too_many_keys", param: "x" })
    expect(codeOf({ list: [1, 2, 3, 4, 5, 6] })).toEqual({ code: "json_too_many_items", param: "list" })
    const refused = jsonShapeRefusal({ a: { b: { c: { d: { e: 1 } } } } }, limits)
    expect(refused?.reason.message).toBe("The JSON body nests deeper than 4 levels (at 'a.b.c.d'; the limit is 4, set by server.json_limits.max_depth).")
  })

  it("walks without recursion: a million levels cost a refusal, not the stack", () => {
    let deep: unknown = 1
    for (let i = 0; i < 1_000_000; i++) deep = [deep]
    const refused = jsonShapeRefusal({ deep: deep as object }, { ...limits, maxDepth: 64 })
    expect((refused?.reason as { code?: string }).code).toBe("json_too_deep")
    expect((refused?.reason as { param?: string }).param?.length).toBeLessThanOrEqual(203)
  })

  it("counts backslashes chunk by chunk and stops once the budget is spent", () => {
    expect(spendEscapes(Buffer.from("no escapes here"), 10)).toBe(10)
    expect(spendEscapes(Buffer.from('"a\\nb\\"c"'), 10)).toBe(8)
    expect(spendEscapes(Buffer.from("\\n".repeat(1_000_000)), 10)).toBeLessThan(0)
  })

  it("a 413 says the limit, the route and what sets it", () => {
    expect(formatBytes(200 * 1024 * 1024)).toBe("200 MiB")
    expect(formatBytes(64 * 1024)).toBe("64 KiB")
    expect(formatBytes(1000)).toBe("1000 bytes")
    expect(bodyTooLarge({ bytes: 4096, route: "POST /console/session", key: undefined }).reason.message).toBe(
      "The request body is larger than the 4 KiB limit of POST /console/session (a fixed limit)."
    )
  })
})
