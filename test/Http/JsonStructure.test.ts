import { describe, expect, it } from "@effect/vitest"
import type { JsonShapeLimits } from "../../src/Http/BodyLimits.ts"
import { jsonShapeRefusal } from "../../src/Http/JsonShape.ts"
import { makeJsonStructureMeter } from "../../src/Http/JsonStructure.ts"

const roomy: JsonShapeLimits = { maxDepth: 64, maxObjectKeys: 10_000, maxArrayItems: 100_000, maxEscapes: 1_000_000, maxContainers: 50_000, maxValues: 1_000_000 }

/** Feeds `text` to a meter in pieces cut at `cuts` (byte offsets): the refusal's code and param. */
const meter = (text: string, limits: Partial<JsonShapeLimits>, cuts: ReadonlyArray<number> = []) => {
  const feed = makeJsonStructureMeter({ ...roomy, ...limits })
  const bytes = Buffer.from(text)
  const points = [0, ...cuts.filter((at) => at > 0 && at < bytes.length).sort((a, b) => a - b), bytes.length]
  for (let i = 1; i < points.length; i++) {
    const refused = feed(bytes.subarray(points[i - 1], points[i]))
    if (refused !== undefined) {
      const reason = refused.reason as { readonly code?: string; readonly param?: string; readonly message: string }
      return { code: reason.code, param: reason.param, message: reason.message }
    }
  }
  return undefined
}

/** A small deterministic generator (mulberry32), so a failure names its seed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const awkward = ['"', "\\", "\\\"", "{", "}", "[", "]", ",", ":", "é", "\u2028", "\n", "a", "key"]

const text = (next: () => number) => Array.from({ length: Math.floor(next() * 6) }, () => awkward[Math.floor(next() * awkward.length)]).join("")

const value = (next: () => number, depth: number): unknown => {
  const pick = next()
  if (depth > 7 || pick < 0.35) {
    const scalar = next()
    return scalar < 0.25 ? text(next) : scalar < 0.5 ? Math.floor(next() * 1e6) - 5e5 : scalar < 0.7 ? next() < 0.5 : scalar < 0.8 ? null : -1.5e-7
  }
  const size = Math.floor(next() * 7)
  if (pick < 0.65) return Array.from({ length: size }, () => value(next, depth + 1))
  const object: Record<string, unknown> = {}
  for (let i = 0; i < size; i++) object[`${text(next)}${i}`] = value(next, depth + 1)
  return object
}

const counts = (root: unknown) => {
  let containers = 0
  let values = 0
  const visit = (v: unknown) => {
    values++
    if (v === null || typeof v !== "object") return
    containers++
    for (const item of Array.isArray(v) ? v : Object.values(v)) visit(item)
  }
  visit(root)
  return { containers, values }
}

describe("the structure of a JSON body, counted while it is read", () => {
  it("refuses what the walk of the parsed body refuses, with the same code and path, however the bytes are cut", () => {
    const small = { maxDepth: 4, maxObjectKeys: 3, maxArrayItems: 5 }
    const cases: Array<[unknown, string | undefined, string | undefined]> = [
      [{ a: { b: { c: { d: 1 } } } }, undefined, undefined],
      [{ a: { b: { c: { d: { e: 1 } } } } }, "json_too_deep", "a.b.c.d"],
      [{ m: [[[[1]]]] }, "json_too_deep", "m[0][0][0]"],
      [{ x: { a: 1, b: 2, c: 3, d: 4 } }, "json_too_many_keys", "x"],
      [{ list: [1, 2, 3, 4, 5, 6] }, "json_too_many_items", "list"],
      [{ 'we"ird\\': { "é": [1, 2, [0, 1, 2, 3, 4, 5]] } }, "json_too_many_items", 'we\\"ird\\\\.é[2]']
    ]
    for (const [body, code, param] of cases) {
      const json = JSON.stringify(body)
      for (let cut = 0; cut <= json.length; cut++) {
        expect(meter(json, small, [cut]), `${json} cut at ${cut}`).toEqual(code === undefined ? undefined : expect.objectContaining({ code, param }))
      }
      const walked = jsonShapeRefusal(body as object, { ...roomy, ...small })
      expect((walked?.reason as { code?: string } | undefined)?.code).toBe(code)
    }
  })

  it("agrees with the walk on 500 random bodies cut at random points, and counts objects and values exactly", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const next = random(seed)
      const body = { root: value(next, 1) }
      const json = JSON.stringify(body)
      const cuts = Array.from({ length: 4 }, () => Math.floor(next() * json.length))
      const limits = { maxDepth: 2 + Math.floor(next() * 6), maxObjectKeys: 1 + Math.floor(next() * 6), maxArrayItems: 1 + Math.floor(next() * 6) }
      const walked = jsonShapeRefusal(body, { ...roomy, ...limits }) !== undefined
      expect(meter(json, limits, cuts) !== undefined, `seed ${seed}: ${json}`).toBe(walked)
      // Exactly at the totals passes; one less is refused.
      const { containers, values } = counts(body)
      expect(meter(json, { maxContainers: containers, maxValues: values }, cuts), `seed ${seed}`).toBeUndefined()
      expect(meter(json, { maxContainers: containers - 1 }, cuts)?.code, `seed ${seed}`).toBe("json_too_many_containers")
      expect(meter(json, { maxValues: values - 1 }, cuts)?.code, `seed ${seed}`).toBe("json_too_many_values")
    }
  })

  it("names the whole-body limits and their keys", () => {
    const objects = `{"metadata":[${Array.from({ length: 1_000 }, () => '{"a":[]}').join(",")}]}`
    expect(meter(objects, { maxContainers: 1_500 })).toEqual({
      code: "json_too_many_containers",
      param: undefined,
      message: "The JSON body holds more than 1,500 objects and arrays (the limit is 1,500, set by server.json_limits.max_containers)."
    })
    expect(meter(`{"input":[${"7,".repeat(2_000)}7]}`, { maxValues: 1_000 })?.message).toContain("server.json_limits.max_values")
  })

  it("skips over long strings: the structure after 8 MB of base64, fed in 64 KiB chunks, is still seen", () => {
    const json = `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,${"QUJD".repeat(2 * 1024 * 1024)}"}}]}]}`
    const cuts = Array.from({ length: Math.ceil(json.length / 65_536) }, (_, i) => i * 65_536)
    expect(meter(json, {}, cuts)).toBeUndefined()
    // Structure after a long string is still seen.
    expect(meter(`${json.slice(0, -1)},"x":{"a":{"b":1}}}`, { maxDepth: 2 }, cuts)?.code).toBe("json_too_deep")
  })
})
