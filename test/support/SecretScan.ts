import { format } from "node:util"
import { afterAll } from "vitest"
import { registeredSecrets } from "../../src/Domain/SecretRedaction.ts"

/**
 * Runs in every test file (vitest `setupFiles`): keeps everything the file's process writes
 * (console, stdout, stderr: the gateway's log lines among them) and every non-streamed HTTP
 * response body a test receives through fetch (the openai SDK, LangChain and the test helpers
 * all use it), and fails the file if any provider key configured in that process appears in
 * it. Keys are those the gateway registered for redaction (see src/Domain/SecretRedaction.ts):
 * every configured `api_key` of at least 8 characters. Streamed bodies are scanned by
 * test/Http/SecretRedaction.test.ts, which also scans spans and usage rows.
 */
const captured: Array<string> = []
const reads: Array<Promise<void>> = []

for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
  const original = console[method].bind(console)
  console[method] = (...args: Array<unknown>) => {
    captured.push(format(...args))
    original(...args)
  }
}

for (const stream of [process.stdout, process.stderr]) {
  const original = stream.write.bind(stream) as (...args: Array<unknown>) => boolean
  stream.write = ((chunk: unknown, ...rest: Array<unknown>) => {
    captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"))
    return original(chunk, ...rest)
  }) as typeof stream.write
}

const originalFetch = globalThis.fetch
globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  const response = await originalFetch(input, init)
  const type = response.headers.get("content-type") ?? ""
  const readable = type.includes("json") || (type.startsWith("text/") && !type.includes("event-stream"))
  if (response.body !== null && readable) {
    reads.push(response.clone().text().then((text) => void captured.push(text), () => undefined))
  }
  return response
}

const settled = (promises: ReadonlyArray<Promise<void>>, ms: number) =>
  Promise.race([Promise.allSettled(promises), new Promise((resolve) => setTimeout(resolve, ms).unref())])

afterAll(async () => {
  await settled(reads, 2000)
  const text = captured.join("\n")
  const leaked = registeredSecrets().filter((secret) => text.includes(secret))
  if (leaked.length > 0) {
    const where = leaked.map((secret) => {
      const at = text.indexOf(secret)
      return text.slice(Math.max(0, at - 80), at).replace(/\s+/g, " ") + "<KEY>"
    })
    throw new Error(`a configured provider key appeared in this file's output or response bodies, after: ${where.join(" | ")}`)
  }
})
