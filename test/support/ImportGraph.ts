import { readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"

/** Every `.ts`/`.mjs` source under `dir` (declaration files excepted). */
export const sourceFiles = (dir: string): Array<string> =>
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
export const runtimeImports = (source: string): Array<string> => [
  ...[...source.matchAll(/^(import|export)\s+(type\s+)?[^;"]*?\s*from\s*"([^"]+)"/gms)].flatMap((match) =>
    match[2] === undefined ? [match[3]!] : []
  ),
  ...[...source.matchAll(/^import\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)].map((match) => (match[1] ?? match[2])!)
]

/** Every relative specifier, type-only ones included: a type import is still a dependency between files. */
export const relativeImports = (source: string): Array<string> =>
  [...source.matchAll(/^(?:import|export)\s+(?:type\s+)?[^;"]*?\s*from\s*"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/gms)].map(
    (match) => (match[1] ?? match[2])!
  )

/** File -> the files it imports, as paths relative to `root`. */
export type ImportGraph = ReadonlyMap<string, ReadonlyArray<string>>

export const importGraph = (root: string): ImportGraph =>
  new Map(
    sourceFiles(root).map((file) => [
      NodePath.relative(root, file),
      relativeImports(readFileSync(file, "utf8")).map((specifier) =>
        NodePath.relative(root, NodePath.resolve(NodePath.dirname(file), specifier))
      )
    ])
  )

/** The import cycles of a graph: its strongly connected components of more than one file (Tarjan). */
export const importCycles = (graph: ImportGraph): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<Array<string>> = []
  let next = 0
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next)
    next++
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!))
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== file)
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return cycles
}

/** A layer rule: files under `from` may import only files under one of `allowed` (their own layer included). */
export interface LayerRule {
  readonly from: string
  readonly allowed: ReadonlyArray<string>
}

export const layerViolations = (graph: ImportGraph, rules: ReadonlyArray<LayerRule>): Array<string> =>
  [...graph].flatMap(([file, targets]) => {
    const rule = rules.find((r) => file.startsWith(r.from))
    if (rule === undefined) return []
    return targets
      .filter((target) => !target.startsWith(rule.from) && !rule.allowed.some((prefix) => target.startsWith(prefix)))
      .map((target) => `${file} -> ${target}`)
  })
