import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { lex, scannedFiles, scanRepository, scanSource } from "./support/RepositoryPaths.ts"

const root = fileURLToPath(new URL("..", import.meta.url))

// Built from pieces, so this file does not trip the check it tests.
const up = (n: number) => Array.from({ length: n }, () => "..").join("/")
const sibling = [up(3), "shared", "fixtures"].join("/")
const variable = ["GATEWAY", "SHARED", "DIR"].join("_")
const reasons = (file: string, source: string) => scanSource(file, source).map((f) => f.reason)

describe("tests read nothing outside the repository", () => {
  it("scans the test scripts and the vitest config", () => {
    const { scripts } = scannedFiles(root)
    expect(scripts).toContain("vitest.config.ts")
    expect(scripts).toContain("test/support/Fixtures.ts")
    expect(scripts.filter((file) => file.startsWith("test/Http/")).length).toBeGreaterThan(10)
    expect(scripts.some((file) => file.startsWith("test/fixtures/"))).toBe(false)
  })

  it("finds no path outside the repository in any of them", () => {
    expect(scanRepository(root)).toEqual([])
  })
})

describe("the repository path check", () => {
  it(`flags a planted "${sibling}" string`, () => {
    const findings = scanSource("test/support/Corpus.ts", `export const corpus = "${sibling}"\n`)
    expect(findings).toEqual([{ file: "test/support/Corpus.ts", line: 1, text: sibling, reason: "string to a folder beside the repository" }])
  })

  it("flags the same folder reached through new URL, NodePath.resolve and NodePath.join pieces", () => {
    expect(reasons("test/support/A.ts", `const a = new URL("${sibling}", import.meta.url)`)).not.toEqual([])
    expect(reasons("test/support/A.ts", `const a = NodePath.resolve(import.meta.dirname, "..", "..", "..", "shared")`)).toEqual([
      "resolve(...) to a folder beside the repository"
    ])
    expect(reasons("test/support/A.ts", `const a = NodePath.join(import.meta.dirname, "${up(3)}", "elsewhere")`)).toEqual([
      "string climbs above the repository root from test/support",
      "join(...) climbs above the repository root from test/support"
    ])
  })

  it("counts the climb from the file's folder, or from the root for a literal base", () => {
    expect(reasons("test/support/A.ts", `new URL("${up(2)}/node_modules/x", import.meta.url)`)).toEqual([])
    expect(reasons("test/support/A.ts", `new URL(\`${up(3)}/x-\${version}\`, import.meta.url)`)).toHaveLength(2)
    expect(reasons("test/A.test.ts", `import { x } from "${up(1)}/src/X.ts"`)).toEqual([])
    expect(reasons("vitest.config.ts", `const x = "${up(1)}/x"`)).toEqual(["string climbs above the repository root from the root"])
    expect(reasons("test/Http/A.test.ts", `readFileSync("${up(1)}/x.json")`)).toEqual(["readFileSync(...) climbs above the repository root from the root"])
    expect(reasons("test/Http/A.test.ts", `NodePath.resolve(process.cwd(), "${up(1)}", "x")`)).toEqual(["resolve(...) climbs above the repository root from the root"])
  })

  it("flags absolute paths into a machine's folders, plain or as file URLs", () => {
    const absolute = (...parts: Array<string>) => ["", ...parts].join("/")
    const paths = [absolute("work", "data", "x.json"), absolute("home", "dev"), absolute("Users", "dev", "x"), `file://${absolute("root", "x")}`, ["~", "x"].join("/")]
    for (const path of [...paths, ["C:", "Users", "x"].join("\\\\")]) {
      expect(reasons("test/A.test.ts", `const p = "${path}"`), path).toHaveLength(1)
    }
  })

  it(`flags ${variable} anywhere, comments included`, () => {
    expect(reasons("test/A.test.ts", `// set ${variable} to move the corpus`)).toHaveLength(1)
    expect(reasons("test/A.test.ts", `const dir = process.env["${variable}"]`)).toHaveLength(1)
  })

  it("leaves URLs, routes, test data and comments alone", () => {
    const source = [
      `// the corpus used to live in ${sibling}`,
      `/* and in ${["", "work", "elsewhere"].join("/")} before that */`,
      `const res = await fetch(\`\${gw.url}/v1/chat/completions\`)`,
      `const keys = ["${up(1)}/outside", "x/${up(2)}/outside", "/tmp/outside", "/etc/passwd"]`,
      `const pattern = /["']\\.\\.\\/shared["']/g`,
      `const parts = ["a", "b"].join("/")`
    ].join("\n")
    expect(scanSource("test/Services/Files/FileStore/Keys.test.ts", source)).toEqual([])
  })

  it("reads strings after regular expressions and inside template interpolations", () => {
    const tokens = lex(`const a = /["'\`]/.test(x) ? \`\${f("${sibling}")}/y\` : "z"`)
    const strings = (list: typeof tokens): Array<string> => list.flatMap((t) => (t.kind === "string" ? [t.value, ...strings([...t.inner])] : []))
    expect(strings(tokens)).toEqual(["\0/y", sibling, "z"])
  })
})
