import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  type FetchOptions,
  type Resolver,
  UrlFetchCode,
  UrlFetcher,
  type UrlFetcherInternals
} from "../../../src/Services/Fetch/UrlFetcher.ts"
import { maxUrlLength } from "../../../src/Services/Fetch/TargetUrl.ts"
import {
  fetchSettings,
  hasOpenssl,
  type LoopbackServer,
  refusal,
  selfSignedCertificate,
  startLoopbackServer
} from "./LoopbackServer.ts"

const param = "url"
const tlsName = "files.example.test"

let server: LoopbackServer
let tlsServer: LoopbackServer | undefined
let tls: { readonly key: string; readonly cert: string } | undefined

const fetchWith =
  (settings: Record<string, unknown>, internals: UrlFetcherInternals = {}) =>
  (url: string, options: Partial<FetchOptions> = {}) =>
    Effect.gen(function* () {
      return yield* (yield* UrlFetcher).fetch(url, { param, ...options })
    }).pipe(Effect.provide(UrlFetcher.layerWith(fetchSettings(settings), internals)))

/** A resolver from a fixed table that counts its calls. */
const resolverOf = (table: Record<string, ReadonlyArray<string>>) => {
  const calls: Array<string> = []
  const resolve: Resolver = async (name) => {
    calls.push(name)
    const found = table[name]
    if (found === undefined) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: "ENOTFOUND" })
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  return { resolve, calls }
}

beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => res.end("loopback content"))
  if (hasOpenssl()) {
    tls = selfSignedCertificate(tlsName)
    tlsServer = await startLoopbackServer((_req, res) => res.end("over tls"), tls)
  }
})
afterAll(async () => {
  await server?.close()
  await tlsServer?.close()
})

describe("UrlFetcher targets", () => {
  it.effect.each(["file:///etc/passwd", "ftp://example.com/file.pdf", "gopher://127.0.0.1:70/_x", "javascript:alert(1)", "data:text/plain,hi", "ws://example.com/"])(
    "refuses the scheme of %s",
    (url) =>
      Effect.gen(function* () {
        const error = yield* refusal(fetchWith({ allow_private_networks: true })(url))
        expect(error.code).toBe(UrlFetchCode.unsupportedScheme)
        expect(error.message).toContain(`'${new URL(url).protocol}'`)
        expect(error.param).toBe(param)
      })
  )

  it.effect.each(["not a url", "http://", "http://exa mple.com/", "", "//example.com/x", "http://[::1/", "http://256.0.0.1/"])(
    "refuses the malformed URL %j",
    (url) =>
      Effect.gen(function* () {
        const error = yield* refusal(fetchWith({})(url))
        expect(error.code).toBe(UrlFetchCode.invalidUrl)
      })
  )

  it.effect("refuses an overlong URL", () =>
    Effect.gen(function* () {
      const error = yield* refusal(fetchWith({})(`https://example.com/${"a".repeat(maxUrlLength)}`))
      expect(error.code).toBe(UrlFetchCode.invalidUrl)
      expect(error.message).toContain(String(maxUrlLength))
    }))

  it.effect("refuses loopback however the host is spelled, without connecting", () =>
    Effect.gen(function* () {
      const port = server.port
      const before = server.requests.length
      for (const url of [
        `http://localhost:${port}/`,
        `http://LOCALHOST:${port}/`,
        `http://127.0.0.1.:${port}/`,
        `http://2130706433:${port}/`,
        `http://0x7f.1:${port}/`,
        `http://0x7f000001:${port}/`,
        `http://127.1:${port}/`,
        `http://0177.0.0.1:${port}/`,
        `http://127.000.000.001:${port}/`,
        `http://[::1]:${port}/`,
        `http://[0:0:0:0:0:0:0:1]:${port}/`,
        `http://[::ffff:127.0.0.1]:${port}/`,
        `http://[::ffff:7f00:1]:${port}/`,
        `http://[64:ff9b::127.0.0.1]:${port}/`,
        `http://[2002:7f00:1::]:${port}/`
      ]) {
        const error = yield* refusal(fetchWith({})(url))
        expect(error.code, url).toBe(UrlFetchCode.forbiddenAddress)
        expect(error.message, url).toContain("loopback")
      }
      for (const url of [`http://0.0.0.0:${port}/`, `http://0:${port}/`, `http://[::]:${port}/`]) {
        const error = yield* refusal(fetchWith({ allow_private_networks: true })(url))
        expect(error.code, url).toBe(UrlFetchCode.forbiddenAddress)
        expect(error.message, url).toContain("unspecified")
      }
      expect(server.requests.length).toBe(before)
    }))

  it.effect("refuses credentials in the URL without echoing them", () =>
    Effect.gen(function* () {
      for (const url of [`http://user:s3cret-pw@127.0.0.1:${server.port}/`, "https://token@example.com/doc.pdf", "https://:s3cret-pw@example.com/"]) {
        const error = yield* refusal(fetchWith({ allow_private_networks: true })(url))
        expect(error.code, url).toBe(UrlFetchCode.credentials)
        expect(error.message).not.toContain("s3cret-pw")
        expect(error.message).not.toContain("token")
      }
    }))

  it.effect("refuses a name that resolves to a forbidden address", () =>
    Effect.gen(function* () {
      const { resolve } = resolverOf({
        "intranet.example.test": ["10.0.0.7"],
        "metadata.example.test": ["169.254.169.254"],
        "mixed.example.test": ["93.184.215.14", "127.0.0.1"],
        "mapped.example.test": ["::ffff:192.168.1.1"]
      })
      const fetch = fetchWith({}, { resolve })
      const expectations = [
        ["intranet.example.test", "private"],
        ["metadata.example.test", "cloud metadata"],
        ["mixed.example.test", "loopback"],
        ["mapped.example.test", "private"]
      ] as const
      for (const [name, label] of expectations) {
        const error = yield* refusal(fetch(`https://${name}/doc.pdf`))
        expect(error.code, name).toBe(UrlFetchCode.forbiddenAddress)
        expect(error.message, name).toContain(`'${name}'`)
        expect(error.message, name).toContain(label)
      }
    }))

  it.effect("refuses localhost through the system resolver", () =>
    Effect.gen(function* () {
      const error = yield* refusal(fetchWith({})(`http://localhost:${server.port}/`))
      expect(error.message).toContain("'localhost', which resolves to a non-public address (loopback)")
    }))

  it.effect("reports a name that does not resolve", () =>
    Effect.gen(function* () {
      const error = yield* refusal(fetchWith({})("https://no-such-host.invalid/doc.pdf"))
      expect(error.code).toBe(UrlFetchCode.unreachable)
      expect(error.message).toContain("'no-such-host.invalid'")
      const empty = yield* refusal(fetchWith({}, { resolve: async () => [] })("https://empty.example.test/"))
      expect(empty.code).toBe(UrlFetchCode.unreachable)
    }))

  it.effect("connects to the checked address, not to a second lookup", () =>
    Effect.gen(function* () {
      // The system resolver knows nothing of this name, so success means the socket used the
      // address the policy approved, with the original name kept in the Host header.
      const { resolve, calls } = resolverOf({ "pinned.example.test": ["127.0.0.1"] })
      const fetch = fetchWith({}, { resolve, publicEndpoints: [{ address: "127.0.0.1", port: server.port }] })
      const result = yield* fetch(`http://pinned.example.test:${server.port}/a.txt`)
      expect(new TextDecoder().decode(result.bytes)).toBe("loopback content")
      expect(calls).toEqual(["pinned.example.test"])
      expect(server.requests.at(-1)?.host).toBe(`pinned.example.test:${server.port}`)
    }))

  it.effect("treats only the declared endpoint as public", () =>
    Effect.gen(function* () {
      const fetch = fetchWith({}, { publicEndpoints: [{ address: "127.0.0.1", port: server.port + 1 }] })
      const error = yield* refusal(fetch(`${server.origin}/`))
      expect(error.code).toBe(UrlFetchCode.forbiddenAddress)
    }))

  it.effect.skipIf(!hasOpenssl())("keeps the original name for TLS (SNI and certificate check)", () =>
    Effect.gen(function* () {
      const port = tlsServer!.port
      const { resolve } = resolverOf({ [tlsName]: ["127.0.0.1"] })
      const endpoints = [{ address: "127.0.0.1", port }]
      const result = yield* fetchWith({}, { resolve, publicEndpoints: endpoints, ca: tls!.cert })(`https://${tlsName}:${port}/t`)
      expect(new TextDecoder().decode(result.bytes)).toBe("over tls")
      const seen = tlsServer!.requests.at(-1)
      expect(seen?.servername).toBe(tlsName)
      expect(seen?.host).toBe(`${tlsName}:${port}`)
      // Without the test CA the self-signed certificate is rejected.
      const error = yield* refusal(fetchWith({}, { resolve, publicEndpoints: endpoints })(`https://${tlsName}:${port}/t`))
      expect(error.code).toBe(UrlFetchCode.unreachable)
      expect(error.message).toContain("certificate")
    }))
})
