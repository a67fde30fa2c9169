import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type FetchOptions, UrlFetchCode, UrlFetcher, type UrlFetcherInternals } from "../../../src/Services/Fetch/UrlFetcher.ts"
import { fetchSettings, type LoopbackServer, refusal, startLoopbackServer } from "./LoopbackServer.ts"

const param = "input_references[0].image_url.url"

/** Stands in for a host on the internet: the tests declare its address:port public. */
let site: LoopbackServer
/** Stands in for an internal service: nothing may ever reach it. */
let internal: LoopbackServer

const fetchWith =
  (settings: Record<string, unknown>, internals: UrlFetcherInternals = {}) =>
  (url: string, options: Partial<FetchOptions> = {}) =>
    Effect.gen(function* () {
      return yield* (yield* UrlFetcher).fetch(url, { param, ...options })
    }).pipe(Effect.provide(UrlFetcher.layerWith(fetchSettings(settings), internals)))

/** Private networks refused; only the `site` server counts as public. */
const guarded = (settings: Record<string, unknown> = {}) =>
  fetchWith(settings, { publicEndpoints: [{ address: "127.0.0.1", port: site.port }] })

const redirectTo = (target: string) => `${site.origin}/to?u=${encodeURIComponent(target)}`

beforeAll(async () => {
  internal = await startLoopbackServer((_req, res) => res.end("internal secret"))
  site = await startLoopbackServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://site")
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname)
    if (chain !== null) {
      const n = Number(chain[1])
      if (n === 0) return res.end("end of chain")
      // Alternate relative and absolute locations.
      const next = n % 2 === 1 ? `/chain/${n - 1}` : `${site.origin}/chain/${n - 1}`
      res.writeHead(302, { location: next })
      return res.end()
    }
    const status = /^\/via\/(\d+)$/.exec(url.pathname)
    if (status !== null) {
      res.writeHead(Number(status[1]), { location: "/chain/0" })
      return res.end()
    }
    if (url.pathname === "/to") {
      res.writeHead(302, { location: url.searchParams.get("u") ?? "" })
      return res.end()
    }
    if (url.pathname === "/no-location") {
      res.writeHead(302)
      return res.end()
    }
    res.writeHead(404)
    res.end()
  })
})
afterAll(async () => {
  await site?.close()
  await internal?.close()
})

describe("UrlFetcher redirects", () => {
  it.effect("follows a chain of relative and absolute redirects", () =>
    Effect.gen(function* () {
      const result = yield* guarded()(`${site.origin}/chain/4`)
      expect(new TextDecoder().decode(result.bytes)).toBe("end of chain")
      expect(result.finalUrl).toBe(`${site.origin}/chain/0`)
      expect(result.filename).toBe("0")
    }))

  it.effect("follows a chain between private hosts when private networks are allowed", () =>
    Effect.gen(function* () {
      const result = yield* fetchWith({ allow_private_networks: true })(redirectTo(`${internal.origin}/doc`))
      expect(new TextDecoder().decode(result.bytes)).toBe("internal secret")
      expect(result.finalUrl).toBe(`${internal.origin}/doc`)
    }))

  it.effect.each([301, 302, 303, 307, 308])("follows status %i", (status) =>
    Effect.gen(function* () {
      const result = yield* guarded()(`${site.origin}/via/${status}`)
      expect(result.finalUrl).toBe(`${site.origin}/chain/0`)
    }))

  it.effect("stops after max_redirects", () =>
    Effect.gen(function* () {
      const ok = yield* guarded({ max_redirects: 3 })(`${site.origin}/chain/3`)
      expect(ok.finalUrl).toBe(`${site.origin}/chain/0`)
      const error = yield* refusal(guarded({ max_redirects: 3 })(`${site.origin}/chain/4`))
      expect(error.code).toBe(UrlFetchCode.tooManyRedirects)
      expect(error.param).toBe(param)
      expect(error.message).toContain("more than 3 times")
      const none = yield* refusal(guarded({ max_redirects: 0 })(`${site.origin}/chain/1`))
      expect(none.code).toBe(UrlFetchCode.tooManyRedirects)
    }))

  it.effect("refuses a redirect from a public host to a loopback address", () =>
    Effect.gen(function* () {
      const before = internal.requests.length
      for (const target of [
        `${internal.origin}/doc`,
        `http://localhost:${internal.port}/doc`,
        `http://2130706433:${internal.port}/doc`,
        `http://0x7f.1:${internal.port}/doc`,
        `http://[::ffff:127.0.0.1]:${internal.port}/doc`,
        `http://[::1]:${internal.port}/doc`
      ]) {
        const error = yield* refusal(guarded()(redirectTo(target)))
        expect(error.code, target).toBe(UrlFetchCode.forbiddenAddress)
        expect(error.message, target).toContain("through 1 redirect")
        expect(error.message, target).toContain("loopback")
      }
      expect(internal.requests.length).toBe(before)
    }))

  it.effect("refuses a redirect to cloud metadata even when private networks are allowed", () =>
    Effect.gen(function* () {
      for (const target of [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://100.100.100.200/latest/meta-data/",
        "http://[::ffff:a9fe:a9fe]/"
      ]) {
        const error = yield* refusal(fetchWith({ allow_private_networks: true })(redirectTo(target)))
        expect(error.code, target).toBe(UrlFetchCode.forbiddenAddress)
        expect(error.message, target).toContain("cloud metadata")
      }
    }))

  it.effect("refuses a redirect to a private name found through DNS", () =>
    Effect.gen(function* () {
      const resolve = (name: string) =>
        Promise.resolve(name === "intranet.example.test" ? [{ address: "10.20.30.40", family: 4 }] : [])
      const fetch = fetchWith({}, { resolve, publicEndpoints: [{ address: "127.0.0.1", port: site.port }] })
      const error = yield* refusal(fetch(redirectTo("http://intranet.example.test/wiki")))
      expect(error.code).toBe(UrlFetchCode.forbiddenAddress)
      expect(error.message).toContain("'intranet.example.test'")
      expect(error.message).toContain("private")
    }))

  it.effect.each(["file:///etc/passwd", "gopher://127.0.0.1:6379/_INFO", "ftp://example.com/x", "data:text/plain,hi"])(
    "refuses a redirect to %s",
    (target) =>
      Effect.gen(function* () {
        const error = yield* refusal(fetchWith({ allow_private_networks: true })(redirectTo(target)))
        expect(error.code).toBe(UrlFetchCode.unsupportedScheme)
        expect(error.message).toContain("through 1 redirect")
      })
  )

  it.effect("refuses a redirect carrying credentials", () =>
    Effect.gen(function* () {
      const error = yield* refusal(fetchWith({ allow_private_networks: true })(redirectTo(`http://admin:hunter2@127.0.0.1:${internal.port}/`)))
      expect(error.code).toBe(UrlFetchCode.credentials)
      expect(error.message).not.toContain("hunter2")
    }))

  it.effect("reports a redirect without a Location header", () =>
    Effect.gen(function* () {
      const error = yield* refusal(guarded()(`${site.origin}/no-location`))
      expect(error.code).toBe(UrlFetchCode.badStatus)
      expect(error.message).toContain("302 without a Location header")
    }))
})
