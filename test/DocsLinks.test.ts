import { existsSync, readFileSync, statSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The documents users and developers read; their links to each other must land on a heading. */
const documents = ["README.md", "docs/ARCHITECTURE.md", "docs/CONFIGURATION.md", "docs/GUIDE.md", "bench/NOTES.md"]

/** Text outside fenced code blocks and inline code, where a `[text](target)` is a link. */
const prose = (markdown: string): string =>
  markdown
    .split(/^```.*$[\s\S]*?^```\s*$/m)
    .join("\n")
    .replace(/`[^`\n]*`/g, "")

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  const headings = markdown.split(/^```.*$[\s\S]*?^```\s*$/m).join("\n").matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)
  for (const [, heading] of headings) {
    const slug = heading!
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!)
  return anchors
}

/** Every relative link of a document whose file is missing, or whose `#anchor` names no heading there. */
const brokenLinks = (file: string): Array<string> => {
  const text = readFileSync(NodePath.join(root, file), "utf8")
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, target]) => {
    if (/^[a-z]+:/i.test(target!)) return []
    const [path, anchor] = target!.split("#", 2) as [string, string | undefined]
    const resolved = path === "" ? NodePath.join(root, file) : NodePath.resolve(NodePath.dirname(NodePath.join(root, file)), path)
    if (!existsSync(resolved)) return [`${file}: ${target} (no such file)`]
    if (anchor === undefined || statSync(resolved).isDirectory()) return []
    return anchorsOf(readFileSync(resolved, "utf8")).has(anchor) ? [] : [`${file}: ${target} (no such heading)`]
  })
}

describe("links between the documents", () => {
  it("the anchor rule is GitHub's", () => {
    const anchors = anchorsOf("# Key management\n## Credits, spend limits and rate limits\n### 1,000 open streams\n## Tests\n## Tests\n")
    expect([...anchors]).toEqual(["key-management", "credits-spend-limits-and-rate-limits", "1000-open-streams", "tests", "tests-1"])
  })

  it.each(documents)("every relative link of %s reaches its file and heading", (file) => {
    expect(brokenLinks(file)).toEqual([])
  })
})
