import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { gzipSync } from "node:zlib"
import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { decodeConfig, GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { type FetchOptions, UrlFetchCode, UrlFetcher, type UrlFetcherInternals } from "../../../src/Services/Fetch/UrlFetcher.ts"
import {
  closedPort,
  fetchSettings,
  type LoopbackServer,
  refusal,
  startLoopbackServer
} from "./LoopbackServer.ts"

import { fixturesDir } from "../../support/Fixtures.ts"
const manifest = JSON.parse(readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8")) as {
  readonly files: ReadonlyArray<{ readonly path: string; readonly mime: string; readonly size_bytes: number; readonly sha256: string }>
}
const pdf = manifest.files.find((f) => f.path === "documents/report.pdf")!
const pdfBytes = readFileSync(NodePath.join(fixturesDir, pdf.path))
const text = manifest.files.find((f) => f.path === "documents/notes.txt")!
const textBytes = readFileSync(NodePath.join(fixturesDir, text.path))

const param = "messages[0].content[1].file.file_url"
const kib = 1024

let server: LoopbackServer

const fetchWith =
  (settings: Record<string, unknown>, internals: UrlFetcherInternals = {}) =>
  (url: string, options: Partial<FetchOptions> = {}) =>
    Effect.gen(function* () {
      const fetcher = yield* UrlFetcher
      return yield* fetcher.fetch(url, { param, ...options })
    }).pipe(Effect.provide(UrlFetcher.layerWith(fetchSettings(settings), internals)))

const open = fetchWith({ allow_private_networks: true })

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.url ?? ""
    if (path === "/report") {
      res.writeHead(200, {
        "content-type": pdf.mime,
        "content-length": pdfBytes.length,
        "content-disposition": 'attachment; filename="quarterly report.pdf"'
      })
      return res.end(pdfBytes)
    }
    if (path === "/docs/notes.txt?v=2") return res.end(textBytes) // chunked, no Content-Type
    if (path === "/declared-large") {
      // Declares 10 MB and then sends nothing: only the header can have caused a refusal.
      res.writeHead(200, { "content-length": 10 * 1024 * 1024 })
      return res.flushHeaders()
    }
    if (path === "/endless") {
      res.writeHead(200, { "content-type": "application/octet-stream" })
      const chunk = Buffer.alloc(16 * kib, 1)
      const timer = setInterval(() => res.write(chunk), 2)
      return res.on("close", () => clearInterval(timer))
    }
    if (path.startsWith("/hang")) return
    if (path === "/gzip") {
      res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" })
      return res.end(gzipSync(textBytes))
    }
    if (path === "/gzip-bomb") {
      res.writeHead(200, { "content-encoding": "gzip" })
      return res.end(gzipSync(Buffer.alloc(8 * 1024 * 1024)))
    }
    if (path === "/zstd") {
      res.writeHead(200, { "content-encoding": "compress" })
      return res.end("x")
    }
    if (path === "/cut") {
      res.writeHead(200, { "content-length": 1000 })
      res.write(Buffer.alloc(10))
      return setTimeout(() => res.socket?.destroy(), 20)
    }
    const status = /^\/status\/(\d+)$/.exec(path)
    if (status !== null) {
      res.writeHead(Number(status[1]))
      return res.end("nope")
    }
    res.writeHead(500)
    res.end()
  })
})
afterAll(() => server?.close())

describe("UrlFetcher", () => {
  it.effect("refuses a loopback server by default, before connecting", () =>
    Effect.gen(function* () {
      const before = server.requests.length
      const error = yield* refusal(fetchWith({})(`${server.origin}/report`))
      expect(error.code).toBe(UrlFetchCode.forbiddenAddress)
      expect(error.param).toBe(param)
      expect(error.message).toContain(param)
      expect(error.message).toContain("loopback")
      expect(server.requests.length).toBe(before)
    }))

  it.effect("fetches from loopback when private networks are allowed", () =>
    Effect.gen(function* () {
      const result = yield* open(`${server.origin}/report`, { accept: "application/pdf" })
      expect(result.bytes.length).toBe(pdf.size_bytes)
      expect(createHash("sha256").update(result.bytes).digest("hex")).toBe(pdf.sha256)
      expect(result.contentType).toBe(pdf.mime)
      expect(result.filename).toBe("quarterly report.pdf")
      expect(result.finalUrl).toBe(`${server.origin}/report`)
      expect(server.requests.at(-1)?.host).toBe(`127.0.0.1:${server.port}`)
    }))

  it.effect("names the file from the URL path and reads chunked bodies", () =>
    Effect.gen(function* () {
      const result = yield* open(`${server.origin}/docs/notes.txt?v=2`)
      expect(result.bytes.length).toBe(text.size_bytes)
      expect(Buffer.from(result.bytes).equals(textBytes)).toBe(true)
      expect(result.filename).toBe("notes.txt")
      expect(result.contentType).toBeNull()
    }))

  it.effect("decodes a gzip body the server sends unasked", () =>
    Effect.gen(function* () {
      const result = yield* open(`${server.origin}/gzip`)
      expect(Buffer.from(result.bytes).equals(textBytes)).toBe(true)
    }))

  it.effect("refuses an unknown content encoding", () =>
    Effect.gen(function* () {
      const error = yield* refusal(open(`${server.origin}/zstd`))
      expect(error.message).toContain("'compress'")
    }))

  it.effect("fails on a declared Content-Length over the limit without reading the body", () =>
    Effect.gen(function* () {
      const error = yield* refusal(open(`${server.origin}/declared-large`, { maxBytes: 64 * kib, timeoutMs: 60_000 }))
      expect(error.code).toBe(UrlFetchCode.tooLarge)
      expect(error.message).toContain("64 KB")
      yield* Effect.promise(() => server.abandoned("/declared-large"))
    }))

  it.effect("stops reading a chunked body past the limit and closes the socket", () =>
    Effect.gen(function* () {
      const error = yield* refusal(open(`${server.origin}/endless`, { maxBytes: 256 * kib }))
      expect(error.code).toBe(UrlFetchCode.tooLarge)
      yield* Effect.promise(() => server.abandoned("/endless"))
    }))

  it.effect("applies the limit to the decoded size of a compressed body", () =>
    Effect.gen(function* () {
      const error = yield* refusal(open(`${server.origin}/gzip-bomb`, { maxBytes: 1024 * kib }))
      expect(error.code).toBe(UrlFetchCode.tooLarge)
      expect(error.message).toContain("1 MB")
    }))

  it.effect("reports a body cut off before its Content-Length", () =>
    Effect.gen(function* () {
      const error = yield* refusal(open(`${server.origin}/cut`))
      expect(error.code).toBe(UrlFetchCode.unreachable)
      expect(error.message).toContain("cut off")
    }))

  it.effect("times out a server that never answers, and closes the socket", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(refusal(open(`${server.origin}/hang`, { timeoutMs: 5_000 })))
      yield* Effect.promise(() => server.arrived("/hang"))
      yield* TestClock.adjust("4999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      expect(error.code).toBe(UrlFetchCode.timeout)
      expect(error.message).toContain("5 seconds")
      yield* Effect.promise(() => server.abandoned("/hang"))
    }))

  it.live("times out on the real clock too", () =>
    Effect.gen(function* () {
      const started = Date.now()
      const error = yield* refusal(open(`${server.origin}/hang?live`, { timeoutMs: 150 }))
      expect(error.code).toBe(UrlFetchCode.timeout)
      expect(Date.now() - started).toBeLessThan(5_000)
    }))

  it.effect.each([304, 403, 404, 500])("names a non-2xx status (%i)", (status) =>
    Effect.gen(function* () {
      const error = yield* refusal(open(`${server.origin}/status/${status}`))
      expect(error.code).toBe(UrlFetchCode.badStatus)
      expect(error.message).toContain(`the URL answered ${status}`)
    }))

  it.effect("accepts an empty 2xx body", () =>
    Effect.gen(function* () {
      const result = yield* open(`${server.origin}/status/204`)
      expect(result.bytes.length).toBe(0)
    }))

  it.effect("reports a closed port as unreachable", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(closedPort)
      const error = yield* refusal(open(`http://127.0.0.1:${port}/x`))
      expect(error.code).toBe(UrlFetchCode.unreachable)
      expect(error.message).toContain("refused the connection")
    }))
})

describe("UrlFetcher.layer", () => {
  const withConfig = (raw: unknown) =>
    Layer.unwrap(
      decodeConfig("test.yaml", raw, {}).pipe(
        Effect.orDie,
        Effect.map((config) => UrlFetcher.layer.pipe(Layer.provide(GatewayConfigFile.fromConfig(config))))
      )
    )
  const fetchUnder = (raw: unknown, url: string) =>
    Effect.gen(function* () {
      return yield* (yield* UrlFetcher).fetch(url, { param: "url" })
    }).pipe(Effect.provide(withConfig(raw)))

  it.effect("refuses private networks with the default configuration", () =>
    Effect.gen(function* () {
      const error = yield* refusal(fetchUnder({}, `${server.origin}/report`))
      expect(error.code).toBe(UrlFetchCode.forbiddenAddress)
    }))

  it.effect("takes allow_private_networks and max_bytes_mb from gateway.yaml", () =>
    Effect.gen(function* () {
      const config = { fetch: { allow_private_networks: true, max_bytes_mb: 1 } }
      const result = yield* fetchUnder(config, `${server.origin}/report`)
      expect(result.bytes.length).toBe(pdf.size_bytes)
      const error = yield* refusal(fetchUnder(config, `${server.origin}/endless`))
      expect(error.code).toBe(UrlFetchCode.tooLarge)
      expect(error.message).toContain("1 MB")
    }))
})
