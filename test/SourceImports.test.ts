import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { importCycles, importGraph, type LayerRule, layerViolations, runtimeImports, sourceFiles } from "./support/ImportGraph.ts"

// A package root that re-exports every module ("effect", "effect/http", "undici") makes the runtime
// load and keep all of them: about 13 MB more RSS for the gateway. Types may still come from a root:
// `import type` is erased.
const srcDir = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "../src")
const barrel = /^effect(\/(ai|cli|cluster|crypto|devtools|encoding|eventlog|graphql|http|http-api|net|observability|persistence|process|reactivity|rpc|schema|socket|sql|testing|workflow|workers))?$|^undici$|^@effect\/[a-z-]+$/

/** Arrows run one way: Http -> Services -> Providers/Streams/Dialects -> Domain (docs/ARCHITECTURE.md). */
const layers: ReadonlyArray<LayerRule> = [
  { from: "Domain/", allowed: [] },
  { from: "Streams/", allowed: ["Domain/"] },
  { from: "Dialects/", allowed: ["Domain/", "Streams/"] },
  { from: "Providers/", allowed: ["Domain/", "Streams/"] },
  { from: "Services/", allowed: ["Domain/", "Streams/", "Providers/", "Dialects/"] },
  { from: "Http/", allowed: ["Domain/", "Streams/", "Providers/", "Services/", "Dialects/"] }
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

  it("finds a cycle of any length, and none in a chain", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts"]]
    ])
    expect(importCycles(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]])
    expect(importCycles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toEqual([])
  })

  it("reports an import against the layers", () => {
    const graph = new Map([
      ["Providers/X/A.ts", ["Domain/D.ts", "Providers/B.ts", "Services/S/S.ts"]],
      ["Domain/D.ts", ["Streams/T.ts"]]
    ])
    expect(layerViolations(graph, layers)).toEqual(["Providers/X/A.ts -> Services/S/S.ts", "Domain/D.ts -> Streams/T.ts"])
  })

  it("no import cycle between source files (type imports included)", () => {
    const graph = importGraph(srcDir)
    expect(graph.size).toBeGreaterThan(50)
    expect(importCycles(graph)).toEqual([])
  })

  it("imports run one way: Http -> Services -> Providers/Streams -> Domain", () => {
    expect(layerViolations(importGraph(srcDir), layers)).toEqual([])
  })

  it("Usage imports nothing of Metrics: metrics observe requests through Usage's RequestObserver", () => {
    const graph = importGraph(srcDir)
    const crossing = [...graph].flatMap(([file, imports]) =>
      file.startsWith("Services/Usage/") ? imports.filter((target) => target.startsWith("Services/Metrics/")).map((target) => `${file} -> ${target}`) : []
    )
    expect([...graph.keys()].filter((file) => file.startsWith("Services/Usage/")).length).toBeGreaterThan(5)
    expect(crossing).toEqual([])
  })
})
