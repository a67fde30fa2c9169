import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { documents, generatedBlock } from "./support/SupportTables.ts"

const root = fileURLToPath(new URL("..", import.meta.url))

/**
 * The docs' dialect tables are generated from the code's own data (field maps, provider field
 * tables, the error mapping): a change to any of them fails here until the docs are regenerated
 * with `node test/support/SupportTables.ts --write`.
 */
describe("generated documentation tables", () => {
  it.each(documents.map((d) => [`${d.file} ${d.name}`, d] as const))("%s equals the table the code generates", (_, { file, name, render }) => {
    const block = generatedBlock(readFileSync(`${root}${file}`, "utf8"), name)
    expect(block).toBeDefined()
    expect(block).toBe(render())
  })

  it("the tables name what the code does: top_k is dropped by OpenAI and sent to Gemini, Messages errors are Anthropic's", () => {
    const support = documents[0].render()
    expect(support).toMatch(/\| `top_k` \| dropped \| native \| `generationConfig\.topK` \|/)
    expect(documents[1].render()).toContain("| 529 `overloaded_error` |")
    // Responses: OpenAI takes the request natively; a Responses-only field is lost elsewhere, and named.
    expect(support).toMatch(/\| `text\.verbosity` \| native \| dropped \| dropped \|/)
    expect(support).toMatch(/\| `max_output_tokens` \| native \| `max_tokens` \| `generationConfig\.maxOutputTokens` \|/)
    expect(documents[1].render()).toContain("| 502 `upstream_error`; in a stream `server_error` |")
  })
})
