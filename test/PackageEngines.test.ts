import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"

type Version = readonly [number, number, number]

/** `22`, `22.19`, `22.19.0`, `6.x`, `10.*` -> the lowest version it names. */
const parse = (text: string): Version => {
  const parts = text.replace(/^v/, "").split(".").map((p) => (p === "x" || p === "*" ? 0 : Number(p)))
  if (parts.some((p) => !Number.isInteger(p))) throw new Error(`unparsed version '${text}'`)
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0]
}
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]

/**
 * The parts of npm's range syntax that `engines.node` fields in the lock use: `*`, `||`, space-separated
 * comparators (`>=`, `>`, `<`, `<=`, `^`, a bare `6.x`). Anything else throws, so an unknown form fails
 * the test rather than passing unseen.
 */
const satisfies = (version: Version, range: string): boolean =>
  range.split("||").some((alternative) => {
    const comparators = alternative.trim().replace(/(>=|<=|>|<|\^)\s+/g, "$1").split(/\s+/).filter((c) => c !== "")
    return comparators.every((comparator) => {
      if (comparator === "*") return true
      const match = /^(>=|<=|>|<|\^)?(.+)$/.exec(comparator)!
      const bound = parse(match[2]!)
      const c = compare(version, bound)
      switch (match[1]) {
        case ">=":
          return c >= 0
        case ">":
          return c > 0
        case "<":
          return c < 0
        case "<=":
          return c <= 0
        case "^":
          return c >= 0 && version[0] === bound[0]
        default:
          // A bare `6.x`: that major.
          return version[0] === bound[0] && (!/^\d+\.\d+/.test(match[2]!) || /\.[x*]/.test(match[2]!) || version[1] === bound[1])
      }
    })
  })

const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
  readonly packages: Record<string, { readonly version?: string; readonly engines?: { readonly node?: string } | ReadonlyArray<string> }>
}
const ranges = Object.entries(lock.packages).flatMap(([path, p]) =>
  p.engines !== undefined && !Array.isArray(p.engines) && typeof (p.engines as { node?: unknown }).node === "string"
    ? [{ path: path === "" ? "model-gateway" : path, range: (p.engines as { node: string }).node }]
    : []
)
const refusing = (version: string) => ranges.filter((r) => !satisfies(parse(version), r.range)).map((r) => `${r.path} (${r.range})`)

describe("package engines", () => {
  it("the range reader agrees with npm on the forms the lock uses", () => {
    expect(satisfies(parse("22.19.0"), ">=22.19")).toBe(true)
    expect(satisfies(parse("22.18.9"), ">=22.19")).toBe(false)
    expect(satisfies(parse("24.1.0"), "^22.12.0 || ^24.0.0 || >=26.0.0")).toBe(true)
    expect(satisfies(parse("25.0.0"), "^22.12.0 || ^24.0.0 || >=26.0.0")).toBe(false)
    expect(satisfies(parse("6.5.0"), ">=6 <7 || >=8")).toBe(true)
    expect(satisfies(parse("7.1.0"), ">=6 <7 || >=8")).toBe(false)
    expect(satisfies(parse("11.0.0"), "10.* || >= 12.*")).toBe(false)
    expect(() => satisfies(parse("1.0.0"), "~1.2")).toThrow()
  })

  it("every package installs without an EBADENGINE warning on the Node the README names, and on the project's own", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string }; devDependencies: { node: string }; license: string }
    expect(pkg.engines.node).toBe(">=22.19")
    expect(pkg.license).toBe("Apache-2.0")
    expect(readFileSync("README.md", "utf8")).toContain("Run `npm ci` with Node >= 22.19")
    expect(readFileSync("LICENSE", "utf8")).toContain("Apache License\n                           Version 2.0, January 2004")
    expect(ranges.length).toBeGreaterThan(50)
    expect(refusing("22.19.0")).toEqual([])
    expect(refusing(pkg.devDependencies.node)).toEqual([])
    // An older Node does warn: the check is not vacuous, and the README's note is why.
    expect(refusing("20.20.0").length).toBeGreaterThan(5)
  })
})
