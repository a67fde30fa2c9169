import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { sourceFiles } from "./support/ImportGraph.ts"
import { auditRegexes, describeFinding, regexesIn } from "./support/RegexAudit.ts"

/**
 * Every regular expression in src/ runs in linear time (issue: a quadratic base64 check held the
 * event loop for seconds on a 78 KB body). Rewrite a flagged pattern (a loop, `indexOf`, a
 * character class that stops at the next start) rather than listing it.
 */
const srcDir = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "../src")

/** Patterns built at run time, by file, and why what they build is linear. */
const runtimeBuilt: Readonly<Record<string, string>> = {
  "Domain/SecretRedaction.ts": "an alternation of escaped literal secrets: no quantifier, no class"
}

describe("regular expressions", () => {
  it("finds literals and folds patterns built from constants", () => {
    const found = regexesIn(
      [
        "const a = /x+y/g",
        'const digits = "\\\\d+"',
        "const b = new RegExp(`^${digits}$`, \"i\")",
        "const c = RegExp(process.env.X ?? \"\")",
        "const d = new RegExp(a.source, \"y\")"
      ].join("\n"),
      "Sample.ts"
    )
    expect(found.map((r) => [r.line, r.pattern, r.flags])).toEqual([
      [1, "x+y", "g"],
      [3, "^\\d+$", "i"],
      [4, undefined, ""],
      [5, "x+y", "y"]
    ])
  })

  it("reports a reintroduced quadratic pattern, with an attack string", () => {
    // The former base64 check of data: URLs, quadratic on a run of line breaks.
    const findings = auditRegexes(regexesIn("export const base64Body = /[A-Za-z0-9+/\\r\\n]*(={0,2})[\\r\\n]*$/y", "Domain/InlineData.ts"))
    expect(findings.map(describeFinding)).toEqual([expect.stringMatching(/^Domain\/InlineData\.ts:1 .*polynomial.*attack/)])
    // A pattern built at run time that is not listed is reported too.
    expect(auditRegexes(regexesIn("const r = new RegExp(input)", "X.ts")).map((f) => f.problem)).toEqual([
      expect.stringContaining("built at run time")
    ])
  })

  it("every regular expression in src/ is linear", { timeout: 240_000 }, () => {
    const regexes = sourceFiles(srcDir).flatMap((file) => regexesIn(readFileSync(file, "utf8"), NodePath.relative(srcDir, file)))
    expect(regexes.length).toBeGreaterThan(100)
    expect(auditRegexes(regexes, runtimeBuilt).map(describeFinding)).toEqual([])
  })
})
