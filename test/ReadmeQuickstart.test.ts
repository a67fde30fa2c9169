import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer, type AddressInfo } from "node:net"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { hasChromium, launchChromium, noChromiumReason } from "./support/Browser.ts"
import { makeTestStorage, type TestStorage } from "./support/TestDatabase.ts"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..")

/** The first `sh` block under the README's "Quickstart" heading, line by line. */
export const quickstartLines = (readme: string): ReadonlyArray<string> => {
  const section = readme.slice(readme.indexOf("\n## Quickstart\n"))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error("README has no sh block under ## Quickstart")
  return block[1]!.trimEnd().split("\n")
}

/** Every top-level JSON object in mixed output (logs, curl bodies without newlines). */
const jsonObjects = (text: string): Array<Record<string, unknown>> => {
  const found: Array<Record<string, unknown>> = []
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0
    let inString = false
    for (let i = start; i < text.length; i++) {
      const c = text[i]
      if (inString) {
        if (c === "\\") i++
        else if (c === '"') inString = false
      } else if (c === '"') inString = true
      else if (c === "{") depth++
      else if (c === "}" && --depth === 0) {
        try {
          found.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>)
          start = i
        } catch {
          // not an object after all: go on from the next brace
        }
        break
      }
    }
  }
  return found
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Provider keys a developer's shell may hold: the quickstart must work with none of them. */
const providerKeys = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY"]

interface Row {
  readonly model: string | null
  readonly provider: string | null
  readonly status: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cost_usd: number
}

if (!hasChromium) console.warn(`the README quickstart test checks the console through its admin API only: ${noChromiumReason}`)

describe("the README quickstart", () => {
  let storage: TestStorage

  beforeAll(async () => {
    storage = await makeTestStorage()
  })
  afterAll(async () => {
    await storage?.cleanup()
  })

  it("pasted into a shell in one go with no provider key, ends with a chat, a file chat and both requests in the console", async () => {
    const lines = quickstartLines(readFileSync(NodePath.join(root, "README.md"), "utf8"))
    expect(lines[0]).toBe("npm ci")
    expect(lines.some((l) => l.includes("admin -- wait"))).toBe(true)
    const port = await freePort()
    // `npm ci` is left out: the tests already run on the installed tree, and reinstalling would
    // replace node_modules under the running suite. Everything after it runs as written, on a
    // free port instead of 8080.
    const script = lines.slice(1).join("\n").replaceAll("localhost:8080", `localhost:${port}`)

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: storage.dataDir,
      // The shipped configuration, as a fresh clone without ./gateway.yaml uses it.
      GATEWAY_CONFIG: NodePath.join(root, "gateway.example.yaml"),
      // The gateway shares the shell's stdout: its access lines could land inside a long curl
      // body (the model list) and break it for the parser below.
      ACCESS_LOG: "off"
    }
    for (const name of [...providerKeys, "GATEWAY_ADMIN_TOKEN"]) delete env[name]
    if (storage.databaseUrl === undefined) delete env["DATABASE_URL"]
    else env["DATABASE_URL"] = Redacted.value(storage.databaseUrl)
    // Its own process group, so the gateway it starts in the background is stopped with it.
    const shell = spawn("bash", ["-c", script], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    shell.stdout!.on("data", (d: Buffer) => (output += d.toString()))
    shell.stderr!.on("data", (d: Buffer) => (output += d.toString()))
    try {
      const code = await new Promise<number | null>((resolve) => shell.once("exit", resolve))
      expect(code, output).toBe(0)
      const objects = jsonObjects(output)
      const models = objects.find((o) => o["object"] === "list")
      expect(models?.["data"], output).toContainEqual(expect.objectContaining({ id: "mock-chat", owned_by: "mock" }))
      const replies = objects.filter((o) => o["object"] === "chat.completion").map((o) => o as { choices: Array<{ message: { content: string } }>; usage: { total_tokens: number } })
      expect(replies.map((r) => r.choices[0]!.message.content), output).toEqual([
        "mock reply to: Hello",
        expect.stringMatching(/^mock reply to: What are the two commands at the top of this file\? \(received 1 document with \d{4,} characters of text\)$/)
      ])
      expect(replies.every((r) => r.usage.total_tokens > 0)).toBe(true)
      expect(output).not.toContain('"error"')

      // The gateway is still running, as after pasting the block: the console's own admin calls
      // (and, where Chromium is installed, the console itself) show both requests.
      const token = /sign in with ([0-9a-f]{64})\)/.exec(output)?.[1]
      expect(token, output).toBeDefined()
      const base = `http://localhost:${port}`
      const admin = async (path: string) => {
        const res = await fetch(`${base}/admin${path}`, { headers: { authorization: `Bearer ${token}` } })
        expect(res.status, path).toBe(200)
        return (await res.json()) as Record<string, unknown>
      }
      const projects = (await admin("/projects"))["data"] as Array<{ id: string; name: string }>
      const demo = projects.find((p) => p.name === "demo")
      expect(demo, JSON.stringify(projects)).toBeDefined()
      // Usage rows are written in batches after each request ends: wait for both to land.
      let rows: Array<Row> = []
      for (let i = 0; i < 200 && rows.length < 2; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100))
        rows = (await admin(`/projects/${demo!.id}/requests`))["data"] as Array<Row>
      }
      expect(rows.map((r) => [r.model, r.provider, r.status])).toEqual([["mock-chat", "mock", 200], ["mock-chat", "mock", 200]])
      expect(rows.every((r) => r.prompt_tokens > 0 && r.completion_tokens > 0 && r.cost_usd > 0)).toBe(true)
      const overview = await admin(`/projects/${demo!.id}/overview`)
      expect(overview["today"]).toMatchObject({ requests: 2, errors: 0 })

      if (hasChromium) {
        const browser = await launchChromium()
        try {
          const page = await browser.newPage()
          page.setDefaultTimeout(15_000)
          await page.goto(`${base}/console`)
          await page.fill("input[name=token]", token!)
          await page.click("#sign-in button[type=submit]")
          await page.waitForSelector("#create-project")
          await page.goto(`${base}/console#/projects/${encodeURIComponent(demo!.id)}/overview`)
          await page.waitForSelector("#top-models")
          expect(await page.textContent("#tile-spend-today")).toContain("2 requests")
          expect(await page.textContent("#top-models")).toContain("mock-chat")
          await page.goto(`${base}/console#/projects/${encodeURIComponent(demo!.id)}/requests`)
          await page.waitForSelector("#requests")
          expect(await page.locator("#requests tbody tr").count()).toBe(2)
          expect(await page.textContent("#requests")).toContain("mock-chat")
        } finally {
          await browser.close()
        }
      }
    } finally {
      try {
        process.kill(-shell.pid!, "SIGTERM")
      } catch {
        // already gone
      }
      // The gateway drains and exits; whatever is left of the group after 15 s is killed.
      const alive = () => {
        try {
          process.kill(-shell.pid!, 0)
          return true
        } catch {
          return false
        }
      }
      for (let i = 0; i < 300 && alive(); i++) await new Promise((r) => setTimeout(r, 50))
      if (alive()) process.kill(-shell.pid!, "SIGKILL")
    }
  }, 180_000)
})
