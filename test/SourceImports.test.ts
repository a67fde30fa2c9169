import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

// A package root that re-exports every module ("effect", "effect/http", "undici") makes the runtime
// load and keep all of them: about 13 MB more RSS for the gateway. Types may still come from a root:
// `import type` is erased.
const srcDir = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "../src")
const barrel = /^effect(\/(ai|cli|cluster|crypto|devtools|encoding|eventlog|graphql|http|http-api|net|observability|persistence|process|reactivity|rpc|schema|socket|sql|testing|workflow|workers))?$|^undici$|^@effect\/[a-z-]+$/

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : []
  })

/**
 * Module specifiers of the imports and re-exports that stay at runtime: all but `import type` and
 * `export type`. `import { type A } from "x"` counts, since it keeps an empty import that loads "x";
 * so do side-effect imports (`import "x"`) and dynamic ones (`import("x")`).
 */
const runtimeImports = (source: string): Array<string> => [
  ...[...source.matchAll(/^(import|export)\s+(type\s+)?[^;"]*?\s*from\s*"([^"]+)"/gms)].flatMap((match) =>
    match[2] === undefined ? [match[3]!] : []
  ),
  ...[...source.matchAll(/^import\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)].map((match) => (match[1] ?? match[2])!)
]

describe("source imports", () => {
  it("finds runtime imports and skips type-only ones", () => {
    expect(runtimeImports('import type { Agent } from "undici"\nimport * as Effect from "effect/Effect"\nimport { type A } from "effect"')).toEqual([
      "effect/Effect",
      "effect"
    ])
    expect(runtimeImports('import "effect"\nconst { Agent } = await import("undici")')).toEqual(["effect", "undici"])
    // Without semicolons, a side-effect import must not run on into the next statement.
    expect(runtimeImports('import "./setup.ts"\nimport type { A } from "effect"')).toEqual(["./setup.ts"])
  })

  it("no source file loads a package root that re-exports every module", () => {
    const files = sourceFiles(srcDir)
    const offenders = files.flatMap((file) =>
      runtimeImports(readFileSync(file, "utf8"))
        .filter((specifier) => barrel.test(specifier))
        .map((specifier) => `${NodePath.relative(srcDir, file)}: ${specifier}`)
    )
    expect(files.length).toBeGreaterThan(50)
    expect(offenders).toEqual([])
  })
})
