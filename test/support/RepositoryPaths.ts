import { readdirSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"

/**
 * A static check that the tests read nothing outside the repository. Every script under
 * `test/` (and `vitest.config.ts`) is lexed; each string literal and each path construction
 * (`NodePath.resolve`/`join`, `new URL`, an `fs` call) is judged as a path:
 *
 * - an absolute path into a machine's own folders (`/work/...`, `/home/...`, `/Users/...`,
 *   `~/...`, `C:\...`, also as a `file://` URL);
 * - a relative path (`./`, `../`) that, resolved from the file's folder, ends above the
 *   repository root; a construction with a literal base (`NodePath.resolve("..")`, an fs call)
 *   resolves from the root, where vitest runs, and one based on `import.meta` from the file's folder;
 * - the sibling folder `shared` reached through `..`, whatever the depth;
 * - the old override variable for that folder, anywhere in the text (also package.json and `.ci/`).
 *
 * Comments are not paths and are skipped (except for the variable). `test/fixtures` and
 * `test/reference` are not scanned: they are data the tests read, never run.
 */
export interface Finding {
  readonly file: string
  readonly line: number
  readonly text: string
  readonly reason: string
}

type Token =
  | {
    readonly kind: "string"
    readonly value: string
    readonly line: number
    /** The tokens of a template literal's interpolations. */
    readonly inner: ReadonlyArray<Token>
  }
  | { readonly kind: "word" | "punct"; readonly value: string; readonly line: number }

const retiredVariable = ["GATEWAY", "SHARED", "DIR"].join("_")
const hostRoots = /^(?:file:\/\/)?(?:\/(?:work|home|root|Users|mnt|srv|media)(?:\/|$)|~\/|[A-Za-z]:[\\/])/
const sharedSibling = /(?:^|[\\/])\.\.[\\/]+shared(?:[\\/]|$)/
const relative = /^\.\.?(?:[\\/]|$)/
const regexAfterWords = new Set(["return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "else", "yield", "await", "do"])
const fsCalls = new Set(["readFileSync", "readFile", "existsSync", "readdirSync", "readdir", "statSync", "stat", "createReadStream", "openSync", "open", "accessSync", "access"])

/** Splits a TypeScript/JavaScript source into strings, words and punctuation; comments and regular expressions are dropped. */
export const lex = (source: string): Array<Token> => {
  const tokens: Array<Token> = []
  let i = 0
  let line = 1
  let braces = 0
  // Open template literals; while one is on the stack the lexer is inside its `${...}`.
  const templates: Array<{ text: string; line: number; start: number; braces: number }> = []
  const regexAllowed = () => {
    const last = tokens.at(-1)
    if (last === undefined) return true
    if (last.kind === "string") return false
    if (last.kind === "word") return regexAfterWords.has(last.value)
    return !/^[)\]]$/.test(last.value)
  }
  /** Reads template text from `i` up to the closing backtick (then emits the template) or to `${`. */
  const readTemplate = () => {
    const template = templates.at(-1)!
    for (;;) {
      const c = source[i]
      if (c === undefined || c === "`") {
        i++
        templates.pop()
        // A template is one string token: its static text, `\0` where values go.
        const inner = tokens.splice(template.start)
        tokens.push({ kind: "string", value: template.text, line: template.line, inner })
        return
      }
      if (c === "\\") {
        template.text += source[i + 1] ?? ""
        i += 2
        continue
      }
      if (c === "$" && source[i + 1] === "{") {
        i += 2
        template.text += "\0"
        template.braces = braces
        return
      }
      if (c === "\n") line++
      template.text += c
      i++
    }
  }
  while (i < source.length) {
    const c = source[i]!
    const next = source[i + 1]
    if (c === "\n") {
      line++
      i++
    } else if (/\s/.test(c)) {
      i++
    } else if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2)
      const stop = end === -1 ? source.length : end + 2
      for (let j = i; j < stop; j++) if (source[j] === "\n") line++
      i = stop
    } else if (c === "\"" || c === "'") {
      const startLine = line
      let text = ""
      i++
      while (i < source.length && source[i] !== c && source[i] !== "\n") {
        if (source[i] === "\\") {
          text += source[i + 1] ?? ""
          i += 2
        } else text += source[i++]
      }
      i++
      tokens.push({ kind: "string", value: text, line: startLine, inner: [] })
    } else if (c === "`") {
      i++
      templates.push({ text: "", line, start: tokens.length, braces })
      readTemplate()
    } else if (c === "}" && templates.length > 0 && templates.at(-1)!.braces === braces) {
      i++
      readTemplate()
    } else if (c === "/" && regexAllowed()) {
      let inClass = false
      i++
      while (i < source.length && source[i] !== "\n") {
        const r = source[i]!
        if (r === "\\") i++
        else if (r === "[") inClass = true
        else if (r === "]") inClass = false
        else if (r === "/" && !inClass) break
        i++
      }
      i++
      while (i < source.length && /[a-z]/i.test(source[i]!)) i++
    } else if (/[A-Za-z_$#]/.test(c)) {
      const start = i
      while (i < source.length && /[\w$#]/.test(source[i]!)) i++
      tokens.push({ kind: "word", value: source.slice(start, i), line })
    } else if (/[0-9]/.test(c)) {
      while (i < source.length && /[\w.]/.test(source[i]!)) i++
      tokens.push({ kind: "word", value: "0", line })
    } else {
      if (c === "{") braces++
      if (c === "}") braces--
      tokens.push({ kind: "punct", value: c, line })
      i++
    }
  }
  return tokens
}

/** Where `path` ends, relative to the root, when resolved from `base` (a folder relative to the root, "" for the root). */
const landing = (base: string, path: string) => NodePath.posix.normalize(NodePath.posix.join(base === "" ? "." : base, path.replaceAll("\\", "/")))
const climbs = (base: string, path: string) => {
  const end = landing(base, path)
  return end === ".." || end.startsWith("../")
}

const judge = (file: string, base: string, path: string, line: number, findings: Array<Finding>, what = "path") => {
  const text = path.replaceAll("\0", "${...}")
  if (hostRoots.test(path)) findings.push({ file, line, text, reason: `${what} into a folder of this machine, outside the repository` })
  else if (sharedSibling.test(path)) findings.push({ file, line, text, reason: `${what} to a folder beside the repository` })
  else if (relative.test(path) && climbs(base, path.split("\0")[0]!)) {
    findings.push({ file, line, text, reason: `${what} climbs above the repository root from ${base === "" ? "the root" : base}` })
  }
}

/** The arguments of the call whose `(` is at `open`: token ranges split at top-level commas. */
const callArguments = (tokens: ReadonlyArray<Token>, open: number): Array<Array<Token>> => {
  const args: Array<Array<Token>> = [[]]
  let depth = 0
  for (let k = open + 1; k < tokens.length; k++) {
    const token = tokens[k]!
    if (token.kind === "punct" && "([{".includes(token.value)) depth++
    if (token.kind === "punct" && ")]}".includes(token.value)) {
      if (depth === 0) break
      depth--
    }
    if (depth === 0 && token.kind === "punct" && token.value === ",") args.push([])
    else args.at(-1)!.push(token)
  }
  return args.filter((arg) => arg.length > 0)
}

const isLiteral = (arg: ReadonlyArray<Token>): arg is [Token & { kind: "string" }] => arg.length === 1 && arg[0]!.kind === "string"
const fromModule = (arg: ReadonlyArray<Token>) =>
  arg.some((t) => t.kind === "word" && (t.value === "meta" || t.value === "__dirname" || t.value === "__filename"))
const fromCwd = (arg: ReadonlyArray<Token>) => arg.some((t) => t.kind === "word" && t.value === "cwd")

/** Path constructions: the literal pieces joined, resolved from the base the call implies. */
const constructions = (file: string, fileDir: string, tokens: ReadonlyArray<Token>, findings: Array<Finding>) => {
  tokens.forEach((token, k) => {
    const open = tokens[k + 1]
    if (token.kind !== "word" || open?.kind !== "punct" || open.value !== "(") return
    const isUrl = token.value === "URL" && tokens[k - 1]?.value === "new"
    const isPathCall = (token.value === "resolve" || token.value === "join") && tokens[k - 1]?.value === "." && tokens[k - 2]?.kind === "word"
    if (!isUrl && !isPathCall && !fsCalls.has(token.value)) return
    const args = callArguments(tokens, k + 1)
    if (args.length === 0) return
    let base: string
    let pieces: Array<Array<Token>>
    if (isUrl) {
      if (!isLiteral(args[0]!) || (args[1] !== undefined && !fromModule(args[1]))) return
      base = fileDir
      pieces = [args[0]!]
    } else if (fsCalls.has(token.value)) {
      if (!isLiteral(args[0]!)) return
      base = ""
      pieces = [args[0]!]
    } else if (fromModule(args[0]!)) {
      base = fileDir
      pieces = args.slice(1)
    } else if (fromCwd(args[0]!)) {
      base = ""
      pieces = args.slice(1)
    } else if (isLiteral(args[0]!)) {
      base = ""
      pieces = args
    } else return
    const literals: Array<string> = []
    for (const piece of pieces) {
      if (!isLiteral(piece)) break
      literals.push(piece[0].value)
    }
    if (literals.length === 0) return
    const path = literals.join("/")
    judge(file, base, relative.test(path) || path === ".." ? path : `./${path}`, token.line, findings, `${isUrl ? "new URL" : token.value}(...)`)
  })
}

/** Findings in one source; `file` is its path relative to the repository root, with `/`. */
export const scanSource = (file: string, source: string): Array<Finding> => {
  const findings: Array<Finding> = []
  const fileDir = NodePath.posix.dirname(file) === "." ? "" : NodePath.posix.dirname(file)
  source.split("\n").forEach((text, index) => {
    if (text.includes(retiredVariable)) findings.push({ file, line: index + 1, text: text.trim(), reason: `${retiredVariable} is gone: tests read their data from the repository` })
  })
  const visit = (tokens: ReadonlyArray<Token>): void => {
    for (const token of tokens) {
      if (token.kind !== "string") continue
      judge(file, fileDir, token.value, token.line, findings, "string")
      visit(token.inner)
    }
    constructions(file, fileDir, tokens, findings)
  }
  visit(lex(source))
  return findings
}

const scripts = /\.(?:[cm]?ts|tsx|[cm]?js)$/
/** The corpus holds sample sources (`documents/example.ts`); they are data, never run. */
const data = /^test\/(?:fixtures|reference)\//

const filesUnder = (root: string, dir: string): Array<string> =>
  readdirSync(NodePath.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.posix.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(root, path) : [path]
  })

/** The files the check reads: scripts under `test/` and the vitest config; package.json and `.ci/` for the variable only. */
export const scannedFiles = (root: string) => ({
  scripts: [...filesUnder(root, "test").filter((file) => scripts.test(file) && !data.test(file)), "vitest.config.ts"].sort(),
  others: ["package.json", ...filesUnder(root, ".ci")].sort()
})

export const scanRepository = (root: string): Array<Finding> => {
  const { scripts: code, others } = scannedFiles(root)
  return [
    ...code.flatMap((file) => scanSource(file, readFileSync(NodePath.join(root, file), "utf8"))),
    ...others.flatMap((file) =>
      readFileSync(NodePath.join(root, file), "utf8")
        .split("\n")
        .flatMap((text, index) => (text.includes(retiredVariable) ? [{ file, line: index + 1, text: text.trim(), reason: `${retiredVariable} is gone` }] : []))
    )
  ]
}
