import { isIPv6 } from "node:net"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError, RateLimited } from "../../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../../Services/Config/GatewayConfigLoader.ts"
import { incomingMessageOf } from "../NodeMessage.ts"

const windowMs = 60_000
/** Clients remembered at once; past it the longest-quiet one is forgotten (a spray of addresses costs bounded memory). */
const maxClients = 10_000

/** Expands `a:b::c` to eight groups, for the /64 an IPv6 client owns as a whole. */
const ipv6Prefix = (address: string): string => {
  const [head = "", tail] = address.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
  return `${groups.slice(0, 4).join(":")}::/64`
}

/**
 * The client a failure is counted against: the connection's address (a proxy in front makes
 * all its clients one), an IPv6 address by its /64, which one host usually owns whole.
 */
export const clientOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const address = incomingMessageOf(request)?.socket.remoteAddress ?? "unknown"
  if (address.startsWith("::ffff:")) return address.slice(7)
  return isIPv6(address) ? ipv6Prefix(address) : address
}

export interface FailedAuthThrottleShape {
  /** The 429 when `client` used up its failures of the last minute; undefined when it may try. */
  readonly refusal: (client: string, nowMs: number) => GatewayError | undefined
  /** Counts one wrong token from `client`. */
  readonly failed: (client: string, nowMs: number) => void
}

/**
 * Failed admin-token attempts per client (`auth.failed_admin_attempts_per_minute`), in this
 * process: a sliding minute of failure times per client address. Once a client has used them up,
 * its next attempts are refused before the token is compared, right or wrong, until the oldest
 * failure is a minute old. Successes are not counted.
 */
export const failedAuthThrottle = (perMinute: number): FailedAuthThrottleShape => {
  const failures = new Map<string, Array<number>>()
  const recent = (client: string, nowMs: number): Array<number> | undefined => {
    const times = failures.get(client)
    if (times === undefined) return undefined
    while (times.length > 0 && times[0]! <= nowMs - windowMs) times.shift()
    if (times.length === 0) {
      failures.delete(client)
      return undefined
    }
    return times
  }
  return {
    refusal: (client, nowMs) => {
      const times = recent(client, nowMs)
      if (times === undefined || times.length < perMinute) return undefined
      const retryAfterMs = Math.max(1, times[0]! + windowMs - nowMs)
      return new GatewayError({
        reason: new RateLimited({
          message: `Too many failed admin sign-in attempts from this address (at most ${perMinute} a minute, auth.failed_admin_attempts_per_minute); retry after the time in the Retry-After header.`,
          retryAfterMs,
          code: "too_many_failed_attempts"
        })
      })
    },
    failed: (client, nowMs) => {
      const times = recent(client, nowMs) ?? []
      times.push(nowMs)
      // Re-inserted last: the map's order is then from the longest-quiet client to the latest.
      failures.delete(client)
      failures.set(client, times)
      if (failures.size > maxClients) failures.delete(failures.keys().next().value!)
    }
  }
}

export class FailedAuthThrottle extends Context.Service<FailedAuthThrottle, FailedAuthThrottleShape>()("gateway/FailedAuthThrottle") {
  static readonly layer = Layer.effect(
    FailedAuthThrottle,
    Effect.map(GatewayConfigFile, ({ config }) => FailedAuthThrottle.of(failedAuthThrottle(config.auth.failed_admin_attempts_per_minute)))
  )
}
