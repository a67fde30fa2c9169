import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type RedisClient, redisScript } from "../Routing/RedisConnection.ts"
import { SlidingWindows, type WindowCharge, type WindowDecision, windowMs, type WindowState } from "./SlidingWindows.ts"

/** The rate-limit store did not answer (Redis away); the caller applies `limits.on_store_failure`. */
export class WindowStoreFailure extends Data.TaggedError("WindowStoreFailure")<{ readonly cause: unknown }> {}

export interface WindowCorrection {
  readonly id: string
  /** The weight charged at admission, and the one it becomes. */
  readonly from: number
  readonly to: number
}

/** Where the sliding windows live: this process, or Redis for every instance at once. */
export interface WindowStore {
  readonly name: "memory" | "redis" | "postgres"
  readonly acquire: (charges: ReadonlyArray<WindowCharge>, ticket: string) => Effect.Effect<WindowDecision, WindowStoreFailure>
  readonly adjust: (ticket: string, corrections: ReadonlyArray<WindowCorrection>) => Effect.Effect<void, WindowStoreFailure>
  /** What `acquire` would decide now, without charging anything. */
  readonly peek: (charges: ReadonlyArray<WindowCharge>) => Effect.Effect<WindowDecision, WindowStoreFailure>
  /** Drops entries of windows nobody was charged against for a minute (stores that do not expire keys themselves). */
  readonly sweep?: Effect.Effect<void, WindowStoreFailure>
}

/** Below this many times the request's weight left in a window, a request takes only its own weight. */
export const exactBelow = 16
/** A share takes at most this fraction of what is left in a window. */
export const shareOf = 4

/** How a share of a window is taken (LeasedWindowStore.ts): how much it asks for, and how far ahead its entry is dated. */
export interface WindowShare {
  /** The weight a share of `charge`'s window would like (the recent rate over the share's span). */
  readonly want: (charge: WindowCharge) => number
  readonly aheadMs: number
}

/**
 * The weight a share charges `charge`'s window holding `total`: what it wants, but at most a
 * quarter of what is left, and only the request's own weight near the limit. Never more than is
 * left, since the request's own weight fits. The Redis script computes the same (`takeScript`).
 */
export const shareSize = (charge: WindowCharge, total: number, want: number): number => {
  const left = charge.limit - total
  if (want <= charge.weight || left < exactBelow * charge.weight) return charge.weight
  return Math.max(charge.weight, Math.min(Math.floor(left / shareOf), want))
}

export interface WindowTake {
  readonly decision: WindowDecision
  /** What each window was charged, by window id (only when admitted). */
  readonly charged: ReadonlyMap<string, number>
}

/** Where a leased store takes its shares from (LeasedWindowStore.ts): Postgres or Redis. */
export interface WindowShareSource {
  readonly name: WindowStore["name"]
  /** One decision charging each window `shareSize` (`share`) in an entry dated `share.aheadMs` ahead. */
  readonly take: (charges: ReadonlyArray<WindowCharge>, ticket: string, share: WindowShare) => Effect.Effect<WindowTake, WindowStoreFailure>
  /** Sets the weight of `ticket`'s entry in window `id`, written as `from`, to `to`. */
  readonly reweigh: (id: string, ticket: string, from: number, to: number) => Effect.Effect<void, WindowStoreFailure>
  readonly peek: WindowStore["peek"]
  readonly sweep?: WindowStore["sweep"]
}

export const memoryWindowStore = (): WindowStore => {
  const windows = new SlidingWindows()
  return {
    name: "memory",
    peek: (charges) => Effect.map(Clock.currentTimeMillis, (now) => windows.peek(charges, now)),
    acquire: (charges, ticket) => Effect.map(Clock.currentTimeMillis, (now) => windows.acquire(charges, ticket, now)),
    adjust: (ticket, corrections) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        for (const c of corrections) windows.adjust(c.id, ticket, c.to, now)
      })
  }
}

/**
 * One script call per decision, atomic on the Redis server and timed by its clock (instances'
 * clocks may differ). Per window: a sorted set of `ticket:weight` members scored by time and
 * a counter of their total weight. Every window is checked first; the ticket enters all or none.
 * Each window is charged the request's weight or, when the caller wants a share (LeasedWindowStore.ts),
 * `shareSize` of it, computed here as there, in an entry dated `ahead` ms in the future.
 * Answers retry-after, too-large, then per window its total, reset and the weight charged.
 */
const takeScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
local ticket = ARGV[2]
local ahead = tonumber(ARGV[3])
local exact = tonumber(ARGV[4])
local part = tonumber(ARGV[5])
local n = #KEYS / 2
local totals = {}
local retry = 0
local large = 0
for i = 1, n do
  local z, c = KEYS[2 * i - 1], KEYS[2 * i]
  local total = tonumber(redis.call('GET', c) or '0')
  local old = redis.call('ZRANGEBYSCORE', z, '-inf', now - span)
  if #old > 0 then
    for j = 1, #old do total = total - tonumber(string.match(old[j], ':(%d+)$')) end
    if total < 0 then total = 0 end
    redis.call('ZREMRANGEBYSCORE', z, '-inf', now - span)
    redis.call('SET', c, total, 'PX', span * 2 + ahead)
  end
  totals[i] = total
  local limit = tonumber(ARGV[3 + 3 * i])
  local weight = tonumber(ARGV[4 + 3 * i])
  if total + weight > limit then
    local wait = span
    if weight > limit then large = 1 else
      local entries = redis.call('ZRANGE', z, 0, -1, 'WITHSCORES')
      local freed = 0
      for j = 1, #entries, 2 do
        freed = freed + tonumber(string.match(entries[j], ':(%d+)$'))
        if total - freed + weight <= limit then wait = math.max(1, tonumber(entries[j + 1]) + span - now) break end
      end
    end
    if wait > retry then retry = wait end
  end
end
local out = { retry, large }
for i = 1, n do
  local z, c = KEYS[2 * i - 1], KEYS[2 * i]
  local total = totals[i]
  local charged = 0
  -- An empty ticket asks without charging (a peek).
  if retry == 0 and ticket ~= '' then
    local limit = tonumber(ARGV[3 + 3 * i])
    local weight = tonumber(ARGV[4 + 3 * i])
    local want = tonumber(ARGV[5 + 3 * i])
    charged = weight
    if want > weight and limit - total >= exact * weight then
      charged = math.max(weight, math.min(math.floor((limit - total) / part), want))
    end
    local at = now
    if charged > weight then at = now + ahead end
    redis.call('ZADD', z, at, ticket .. ':' .. charged)
    total = total + charged
    redis.call('SET', c, total, 'PX', span * 2 + ahead)
    redis.call('PEXPIRE', z, span * 2 + ahead)
  end
  local last = redis.call('ZRANGE', z, -1, -1, 'WITHSCORES')
  local reset = 0
  if #last > 0 then reset = math.max(0, tonumber(last[2]) + span - now) end
  out[#out + 1] = total
  out[#out + 1] = reset
  out[#out + 1] = charged
end
return out`

/**
 * Rewrites the weight of a ticket's entry in each window, from the weight the caller last wrote.
 * When the entry is not under that weight (two rewrites of one share's entry crossed, or an
 * answer was lost after the write), it is found by its ticket, and the total moves by what
 * the entry really held: Redis applies one connection's calls in order, so the last one wins.
 */
const adjustScript = `
local n = #KEYS / 2
for i = 1, n do
  local z, c = KEYS[2 * i - 1], KEYS[2 * i]
  local from = ARGV[1] .. ':' .. ARGV[2 * i]
  local held = tonumber(ARGV[2 * i])
  local score = redis.call('ZSCORE', z, from)
  if not score then
    local prefix = ARGV[1] .. ':'
    local entries = redis.call('ZRANGE', z, 0, -1, 'WITHSCORES')
    for j = 1, #entries, 2 do
      local rest = string.sub(entries[j], #prefix + 1)
      if string.sub(entries[j], 1, #prefix) == prefix and string.match(rest, '^%d+$') then
        from = entries[j]
        score = entries[j + 1]
        held = tonumber(rest)
        break
      end
    end
  end
  if score then
    redis.call('ZREM', z, from)
    redis.call('ZADD', z, score, ARGV[1] .. ':' .. ARGV[2 * i + 1])
    redis.call('INCRBY', c, tonumber(ARGV[2 * i + 1]) - held)
  end
end
return 1`

const takeInRedis = redisScript(takeScript)
const adjust = redisScript(adjustScript)

/** The two scripts on one client and key prefix. */
const redisWindows = (client: RedisClient, prefix: string) => {
  const keysOf = (ids: ReadonlyArray<string>) => ids.flatMap((id) => [`${prefix}rl:${id}:log`, `${prefix}rl:${id}:total`])
  const call = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (cause) => new WindowStoreFailure({ cause }) })
  const take = (charges: ReadonlyArray<WindowCharge>, ticket: string, share: WindowShare | undefined) =>
    Effect.map(
      call(() =>
        takeInRedis(client, {
          keys: keysOf(charges.map((c) => c.id)),
          arguments: [
            String(windowMs),
            ticket,
            String(share?.aheadMs ?? 0),
            String(exactBelow),
            String(shareOf),
            ...charges.flatMap((c) => [String(c.limit), String(Math.round(c.weight)), String(share === undefined ? 0 : Math.round(share.want(c)))])
          ]
        })
      ),
      (reply): WindowTake => {
        const values = (reply as ReadonlyArray<number | string>).map(Number)
        const retryAfterMs = values[0] ?? 0
        const charged = new Map<string, number>()
        const states = charges.map((charge, i): WindowState => {
          if (retryAfterMs === 0) charged.set(charge.id, values[4 + 3 * i] ?? charge.weight)
          return {
            id: charge.id,
            limit: charge.limit,
            remaining: Math.max(0, charge.limit - (values[2 + 3 * i] ?? 0)),
            resetMs: values[3 + 3 * i] ?? 0
          }
        })
        const decision: WindowDecision = retryAfterMs === 0 ? { admitted: true, states } : { admitted: false, retryAfterMs, states, tooLarge: values[1] === 1 }
        return { decision, charged }
      }
    )
  /** One call for every window's entry of `ticket`. */
  const reweigh = (ticket: string, corrections: ReadonlyArray<WindowCorrection>) =>
    corrections.length === 0
      ? Effect.void
      : Effect.asVoid(call(() =>
        adjust(client, {
          keys: keysOf(corrections.map((c) => c.id)),
          arguments: [ticket, ...corrections.flatMap((c) => [String(Math.round(c.from)), String(Math.round(c.to))])]
        })
      ))
  const peek = (charges: ReadonlyArray<WindowCharge>) => Effect.map(take(charges, "", undefined), (t) => t.decision)
  return { take, reweigh, peek }
}

/** The windows in Redis as a source of shares: a script call per share instead of per request. */
export const redisWindowSource = (client: RedisClient, prefix: string): WindowShareSource => {
  const windows = redisWindows(client, prefix)
  return {
    name: "redis",
    take: windows.take,
    peek: windows.peek,
    reweigh: (id, ticket, from, to) => windows.reweigh(ticket, [{ id, from, to }])
  }
}

/** The windows in Redis, one script call per admission and one per correction. */
export const redisWindowStore = (client: RedisClient, prefix: string): WindowStore => {
  const windows = redisWindows(client, prefix)
  return {
    name: "redis",
    acquire: (charges, ticket) => Effect.map(windows.take(charges, ticket, undefined), (t) => t.decision),
    peek: windows.peek,
    adjust: windows.reweigh
  }
}
