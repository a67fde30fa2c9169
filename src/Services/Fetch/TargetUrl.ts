import { isIPv4 } from "node:net"
import * as Effect from "effect/Effect"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import { FetchFailure, type Hop } from "./FetchFailure.ts"

/** Longer URLs are refused before parsing; no real document link comes close. */
export const maxUrlLength = 8192

export type TargetHost =
  /** An IP literal: the only address the request may use. */
  | { readonly _tag: "Address"; readonly address: string }
  /** A name that must be resolved, and every resolved address checked. */
  | { readonly _tag: "Name"; readonly name: string }

export interface Target {
  readonly url: URL
  readonly host: TargetHost
  readonly port: number
}

/**
 * Parses with the WHATWG URL parser, which is also what canonicalises numeric host spellings
 * (`2130706433`, `0x7f.1`, `127.1`, `[::ffff:7f00:1]`) into plain addresses before any check.
 * `base` resolves relative redirect locations.
 */
export const parseTarget = (raw: string, hop: Hop, base?: URL): Effect.Effect<Target, GatewayError> =>
  Effect.gen(function* () {
    if (raw.length > maxUrlLength) return yield* FetchFailure.tooLong(hop, maxUrlLength)
    let url: URL
    try {
      url = base === undefined ? new URL(raw) : new URL(raw, base)
    } catch {
      return yield* FetchFailure.malformed(hop)
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return yield* FetchFailure.scheme(hop, url.protocol)
    if (url.username !== "" || url.password !== "") return yield* FetchFailure.credentials(hop)
    if (url.hostname === "") return yield* FetchFailure.malformed(hop)
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
    const hostname = url.hostname
    const host: TargetHost =
      hostname.startsWith("[") && hostname.endsWith("]")
        ? { _tag: "Address", address: hostname.slice(1, -1) }
        : isIPv4(hostname)
          ? { _tag: "Address", address: hostname }
          : { _tag: "Name", name: hostname }
    return { url, host, port }
  })
