import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer, type AddressInfo } from "node:net"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { type FakeUpstream, startFakeUpstream } from "./support/FakeUpstream.ts"
import { openAiCompletion } from "./support/OpenAiFixtures.ts"
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

describe("the README quickstart", () => {
  let storage: TestStorage
  let upstream: FakeUpstream

  beforeAll(async () => {
    storage = await makeTestStorage()
    upstream = await startFakeUpstream()
  })
  afterAll(async () => {
    await upstream?.stop()
    await storage?.cleanup()
  })

  it("pasted into a shell in one go, ends with a chat completion and a file upload", async () => {
    const lines = quickstartLines(readFileSync(NodePath.join(root, "README.md"), "utf8"))
    expect(lines[0]).toBe("npm ci")
    expect(lines.some((l) => l.includes("admin -- wait"))).toBe(true)
    const port = await freePort()
    // `npm ci` is left out: the tests already run on the installed tree, and reinstalling would
    // replace node_modules under the running suite. Everything after it runs as written, on a
    // free port instead of 8080.
    const script = lines.slice(1).join("\n").replaceAll("localhost:8080", `localhost:${port}`)
    upstream.always({ kind: "json", status: 200, body: openAiCompletion({ content: "Hello from the quickstart" }) })

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: storage.dataDir,
      GATEWAY_CONFIG: NodePath.join(root, "gateway.example.yaml"),
      OPENAI_API_KEY: "sk-quickstart-upstream-key-000000",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      // The gateway shares the shell's stdout: its access lines could land inside a long curl
      // body (the model list) and break it for the parser below.
      ACCESS_LOG: "off"
    }
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
      const completion = objects.find((o) => o["object"] === "chat.completion")
      expect(completion, output).toBeDefined()
      expect(JSON.stringify(completion)).toContain("Hello from the quickstart")
      const file = objects.find((o) => o["object"] === "file")
      expect(file, output).toMatchObject({ filename: "README.md", purpose: "user_data" })
      expect(objects.some((o) => o["object"] === "list")).toBe(true)
      expect(upstream.requests.some((r) => r.url.endsWith("/chat/completions"))).toBe(true)
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
