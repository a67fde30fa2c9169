import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import type { Readable, Transform } from "node:stream"
import * as zlib from "node:zlib"
import * as Effect from "effect/Effect"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { FetchFailure, type Hop } from "./FetchFailure.ts"
import type { Target } from "./TargetUrl.ts"

export interface PinnedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export interface OnceRequest {
  readonly target: Target
  /** Already checked against the address policy; the socket may connect to these and nothing else. */
  readonly addresses: ReadonlyArray<PinnedAddress>
  readonly accept: string
  readonly userAgent: string
  /** 4xx and 5xx answers are read and returned like 2xx ones instead of failing the fetch. */
  readonly acceptErrorStatus: boolean
  readonly maxBytes: number
  readonly hop: Hop
  /** Extra trusted certificate authorities (self-signed test servers). */
  readonly ca: string | undefined
}

export type OnceResponse =
  | { readonly _tag: "Redirect"; readonly status: number; readonly location: string | undefined }
  | {
      readonly _tag: "Body"
      readonly status: number
      readonly headers: Readonly<Record<string, string>>
      readonly contentType: string | null
      readonly contentDisposition: string | undefined
      readonly bytes: Uint8Array
    }

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/**
 * Answers Node's connect-time lookup with the validated addresses, so the socket cannot reach
 * anything the policy did not see: a second DNS answer (rebinding) never gets asked for.
 */
const pinnedLookup =
  (name: string, addresses: ReadonlyArray<PinnedAddress>): LookupFunction =>
  (hostname, options, callback) => {
    const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0
    const usable = hostname === name ? addresses.filter((a) => family === 0 || a.family === family) : []
    process.nextTick(() => {
      const first = usable[0]
      if (first === undefined) {
        const error: NodeJS.ErrnoException = new Error(`no validated address for ${hostname}`)
        error.code = "ENOTFOUND"
        callback(error, "")
      } else if (options.all === true) {
        callback(null, usable.map((a) => ({ address: a.address, family: a.family })))
      } else {
        callback(null, first.address, first.family)
      }
    })
  }

/** Node error codes -> what the client is told. Codes, not messages, decide. */
const describeNodeError = (error: NodeJS.ErrnoException): string => {
  const code = error.code ?? ""
  if (code === "ECONNREFUSED") return "refused the connection"
  if (code === "ECONNRESET" || code === "EPIPE") return "closed the connection"
  if (code.startsWith("HPE_")) return "sent an invalid HTTP response"
  if (
    code.startsWith("ERR_TLS_") ||
    code.startsWith("ERR_SSL_") ||
    code.startsWith("CERT_") ||
    code.includes("SELF_SIGNED") ||
    code.startsWith("UNABLE_TO_") ||
    code === "HOSTNAME_MISMATCH"
  ) {
    return "failed the TLS handshake or presented a certificate that could not be verified"
  }
  return "could not be reached"
}

const decoderFor = (encoding: string): Transform | "identity" | undefined => {
  switch (encoding) {
    case "":
    case "identity":
      return "identity"
    case "gzip":
    case "x-gzip":
    case "deflate":
      return zlib.createUnzip()
    case "br":
      return zlib.createBrotliDecompress()
    default:
      return undefined
  }
}

/** Response headers with repeated ones joined, as `fetch`'s Headers would give them. */
const flatHeaders = (headers: http.IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/** One GET without following redirects. The body is streamed and abandoned past `maxBytes`. */
export const requestOnce = (input: OnceRequest): Effect.Effect<OnceResponse, GatewayError> =>
  Effect.callback<OnceResponse, GatewayError>((resume) => {
    const { url, host, port } = input.target
    const hostname = host._tag === "Address" ? host.address : host.name
    let settled = false
    const streams: Array<{ destroy: () => void }> = []
    const stop = () => {
      for (const stream of streams) stream.destroy()
    }
    const finish = (effect: Effect.Effect<OnceResponse, GatewayError>) => {
      if (settled) return
      settled = true
      stop()
      resume(effect)
    }
    const fail = (error: GatewayError) => finish(Effect.fail(error))

    const options: https.RequestOptions = {
      method: "GET",
      protocol: url.protocol,
      hostname,
      port,
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        accept: input.accept,
        // Compressed bodies are decoded below if a server sends them anyway, but asking for none
        // keeps Content-Length meaningful for the size check.
        "accept-encoding": "identity",
        "user-agent": input.userAgent
      },
      // A fresh agent per request: no pooled socket, connected for another lookup, is reused.
      agent: false,
      ...(host._tag === "Name" ? { lookup: pinnedLookup(host.name, input.addresses), servername: host.name } : {}),
      ...(input.ca === undefined ? {} : { ca: input.ca })
    }
    const request = (url.protocol === "https:" ? https : http).request(options)
    streams.push(request)
    request.on("error", (error: NodeJS.ErrnoException) => fail(FetchFailure.unreachable(input.hop, url.host, describeNodeError(error))))
    request.on("response", (response) => {
      streams.push(response)
      const status = response.statusCode ?? 0
      if (redirectStatuses.has(status)) {
        return finish(Effect.succeed({ _tag: "Redirect", status, location: response.headers.location }))
      }
      const usable = (status >= 200 && status <= 299) || (input.acceptErrorStatus && status >= 400 && status <= 599)
      if (!usable) return fail(FetchFailure.status(input.hop, status))
      const declared = Number(response.headers["content-length"] ?? Number.NaN)
      if (declared > input.maxBytes) return fail(FetchFailure.tooLarge(input.hop, input.maxBytes))
      const encoding = (response.headers["content-encoding"] ?? "").trim().toLowerCase()
      const decoder = decoderFor(encoding)
      if (decoder === undefined) return fail(FetchFailure.badEncoding(input.hop, encoding))
      let body: Readable = response
      if (decoder !== "identity") {
        streams.push(decoder)
        body = response.pipe(decoder)
        decoder.on("error", () => fail(FetchFailure.broken(input.hop, "the compressed response could not be decoded")))
      }
      const chunks: Array<Uint8Array> = []
      let total = 0
      body.on("data", (chunk: Buffer) => {
        total += chunk.length
        if (total > input.maxBytes) return fail(FetchFailure.tooLarge(input.hop, input.maxBytes))
        chunks.push(chunk)
      })
      response.on("error", () => fail(FetchFailure.broken(input.hop, "the response was cut off")))
      body.on("end", () => {
        if (!response.complete) return fail(FetchFailure.broken(input.hop, "the response was cut off"))
        const bytes = new Uint8Array(total)
        let offset = 0
        for (const chunk of chunks) {
          bytes.set(chunk, offset)
          offset += chunk.length
        }
        finish(
          Effect.succeed({
            _tag: "Body",
            status,
            headers: flatHeaders(response.headers),
            contentType: response.headers["content-type"]?.trim() || null,
            contentDisposition: response.headers["content-disposition"],
            bytes
          })
        )
      })
    })
    request.end()
    // Interruption (the total time limit, or the caller going away) closes the socket.
    return Effect.sync(stop)
  })
