import { checkSync } from "recheck"
import { parseAst } from "rolldown/parseAst"

/**
 * Finds every regular expression of the sources and asks recheck (a ReDoS checker that proves
 * linearity on an automaton, or fuzzes with a step counter where lookaround rules that out)
 * whether it can take super-linear time. It runs offline: recheck's native agent ships in its
 * npm package (its pure-JS build is the fallback, slower).
 */

export interface FoundRegex {
  readonly file: string
  readonly line: number
  /** Undefined when the pattern is built at run time from something the audit cannot fold. */
  readonly pattern: string | undefined
  readonly flags: string
  /** The source text, for reports. */
  readonly text: string
}

export interface RegexFinding {
  readonly regex: FoundRegex
  readonly problem: string
}

interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
  readonly [key: string]: unknown
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"

const children = (node: Node): Array<Node> =>
  Object.entries(node).flatMap(([key, value]) =>
    key === "parent" ? [] : Array.isArray(value) ? value.filter(isNode) : isNode(value) ? [value] : []
  )

/** Module-level `const name = "..."` and `` const name = `...${other}...` ``, for folding `new RegExp(name)`. */
const stringConstants = (program: Node): Map<string, Node> => {
  const out = new Map<string, Node>()
  for (const statement of (program["body"] as Array<Node>) ?? []) {
    const declaration = statement.type === "ExportNamedDeclaration" ? (statement["declaration"] as Node | null) : statement
    if (declaration?.type !== "VariableDeclaration" || declaration["kind"] !== "const") continue
    for (const declarator of declaration["declarations"] as Array<Node>) {
      const id = declarator["id"] as Node
      const init = declarator["init"] as Node | null
      if (id.type === "Identifier" && init !== null) out.set(id["name"] as string, init)
    }
  }
  return out
}

/** The string value of a literal, a template of folded constants, `a + b` or `regex.source`; undefined otherwise. */
const fold = (node: Node | undefined, constants: Map<string, Node>, depth = 0): string | undefined => {
  if (node === undefined || depth > 20) return undefined
  switch (node.type) {
    case "Literal":
      return typeof node["value"] === "string" ? node["value"] : undefined
    case "MemberExpression": {
      // `other.source`, where `other` is a regex literal of the module.
      const object = node["object"] as Node
      const property = node["property"] as Node
      if (object.type !== "Identifier" || property.type !== "Identifier" || property["name"] !== "source") return undefined
      const regex = constants.get(object["name"] as string)?.["regex"] as { readonly pattern: string } | undefined
      return regex?.pattern
    }
    case "Identifier":
      return fold(constants.get(node["name"] as string), constants, depth + 1)
    case "TemplateLiteral": {
      const quasis = node["quasis"] as Array<Node>
      const expressions = node["expressions"] as Array<Node>
      let out = ""
      for (let i = 0; i < quasis.length; i++) {
        const cooked = (quasis[i]!["value"] as { cooked: string | null }).cooked
        if (cooked === null) return undefined
        out += cooked
        if (i < expressions.length) {
          const value = fold(expressions[i], constants, depth + 1)
          if (value === undefined) return undefined
          out += value
        }
      }
      return out
    }
    case "BinaryExpression": {
      if (node["operator"] !== "+") return undefined
      const left = fold(node["left"] as Node, constants, depth + 1)
      const right = fold(node["right"] as Node, constants, depth + 1)
      return left === undefined || right === undefined ? undefined : left + right
    }
    default:
      return undefined
  }
}

/** Every regex literal and every `RegExp(...)` / `new RegExp(...)` call in one source file. */
export const regexesIn = (source: string, file: string): Array<FoundRegex> => {
  const program = parseAst(source, { lang: file.endsWith(".ts") ? "ts" : "js" }, file) as unknown as Node
  const constants = stringConstants(program)
  const lineOf = (offset: number) => source.slice(0, offset).split("\n").length
  const found: Array<FoundRegex> = []
  const visit = (node: Node) => {
    const regex = node["regex"] as { pattern: string; flags: string } | undefined
    if (node.type === "Literal" && regex !== undefined) {
      found.push({ file, line: lineOf(node.start), pattern: regex.pattern, flags: regex.flags, text: source.slice(node.start, node.end) })
    }
    const callee = node["callee"] as Node | undefined
    if ((node.type === "NewExpression" || node.type === "CallExpression") && callee?.type === "Identifier" && callee["name"] === "RegExp") {
      const [pattern, flags] = node["arguments"] as Array<Node>
      found.push({
        file,
        line: lineOf(node.start),
        pattern: fold(pattern, constants),
        flags: flags === undefined ? "" : (fold(flags, constants) ?? "?"),
        text: source.slice(node.start, node.end)
      })
    }
    for (const child of children(node)) visit(child)
  }
  visit(program)
  return found
}

/**
 * recheck's verdict on each regex: a finding for every one that is not proven or fuzzed safe
 * (with the attack string it found), and for every one built at run time that is not in
 * `runtimeBuilt` (file -> why the built pattern is linear). `randomSeed` keeps the fuzzer's
 * verdict the same on every run; a checker timeout is a finding too, never a pass.
 */
export const auditRegexes = (
  regexes: ReadonlyArray<FoundRegex>,
  runtimeBuilt: Readonly<Record<string, string>> = {}
): Array<RegexFinding> =>
  regexes.flatMap((regex): Array<RegexFinding> => {
    if (regex.pattern === undefined) {
      return runtimeBuilt[regex.file] === undefined
        ? [{ regex, problem: "built at run time from values the audit cannot see; fold it from constants or list it with a reason" }]
        : []
    }
    const result = checkSync(regex.pattern, regex.flags, { timeout: 60_000, randomSeed: 1 })
    if (result.status === "safe") return []
    if (result.status === "vulnerable") {
      return [{ regex, problem: `${result.complexity.summary} (attack: ${result.attack.pattern})` }]
    }
    return [{ regex, problem: `the checker could not decide (${result.error.kind})` }]
  })

export const describeFinding = ({ regex, problem }: RegexFinding): string => `${regex.file}:${regex.line} ${regex.text}: ${problem}`
