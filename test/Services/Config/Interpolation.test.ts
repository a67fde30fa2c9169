import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { firstReference, replaceReferences } from "../../../src/Services/Config/Interpolation.ts"

// The former pattern, quadratic on many `${A:-` with no `}` after them: the one-pass scanner must
// read every value the same way.
const former = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g
const formerReplace = (value: string) =>
  value.replace(former, (match, name: string | undefined, fallback: string | undefined) =>
    match === "$$" ? "$" : `<${name}|${fallback ?? "-"}>`)

const alphabet = ["$", "{", "}", ":", "-", "A", "b", "_", "1", " "]
const Text = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: alphabet.length - 1 })))

describe("configuration interpolation", () => {
  it.prop("reads every value as the former regular expression did", { codes: Text }, ({ codes }) => {
    const value = codes.map((c) => alphabet[c]).join("")
    return replaceReferences(value, ({ name, fallback }) => `<${name}|${fallback ?? "-"}>`) === formerReplace(value)
  })

  it("finds references, defaults and escapes", () => {
    expect(replaceReferences("a${X}b${Y:-d{e$f}g$$h${1}", ({ name, fallback }) => `[${name}=${fallback ?? ""}]`)).toBe(
      "a[X=]b[Y=d{e$f]g$h${1}"
    )
    expect(firstReference("sk-${OPENAI_API_KEY:-}")?.name).toBe("OPENAI_API_KEY")
    expect(firstReference("${A:-never closed")).toBeUndefined()
  })

  it("reads 20,000 unclosed references (the quadratic case) as text", () => {
    const value = "${A:-".repeat(20_000)
    expect(replaceReferences(value, () => "x")).toBe(value)
  })
})
