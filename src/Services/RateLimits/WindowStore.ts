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
 * One script call per request, atomic on the Redis server and timed by its clock (instances'
 * clocks may differ). Per window: a sorted set of `ticket:weight` members scored by time and
 * a counter of their total weight. Every window is checked first; the ticket enters all or none.
 */
const acquireScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
local ticket = ARGV[2]
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
    redis.call('SET', c, total, 'PX', span * 2)
  end
  totals[i] = total
  local limit = tonumber(ARGV[1 + 2 * i])
  local weight = tonumber(ARGV[2 + 2 * i])
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
  -- An empty ticket asks without charging (a peek).
  if retry == 0 and ticket ~= '' then
    local weight = tonumber(ARGV[2 + 2 * i])
    redis.call('ZADD', z, now, ticket .. ':' .. weight)
    total = total + weight
    redis.call('SET', c, total, 'PX', span * 2)
    redis.call('PEXPIRE', z, span * 2)
  end
  local last = redis.call('ZRANGE', z, -1, -1, 'WITHSCORES')
  local reset = 0
  if #last > 0 then reset = math.max(0, tonumber(last[2]) + span - now) end
  out[#out + 1] = total
  out[#out + 1] = reset
end
return out`

const adjustScript = `
local n = #KEYS / 2
for i = 1, n do
  local z, c = KEYS[2 * i - 1], KEYS[2 * i]
  local from = ARGV[1] .. ':' .. ARGV[2 * i]
  local score = redis.call('ZSCORE', z, from)
  if score then
    redis.call('ZREM', z, from)
    redis.call('ZADD', z, score, ARGV[1] .. ':' .. ARGV[2 * i + 1])
    redis.call('INCRBY', c, tonumber(ARGV[2 * i + 1]) - tonumber(ARGV[2 * i]))
  end
end
return 1`

const acquire = redisScript(acquireScript)
const adjust = redisScript(adjustScript)

export const redisWindowStore = (client: RedisClient, prefix: string): WindowStore => {
  const keysOf = (ids: ReadonlyArray<string>) => ids.flatMap((id) => [`${prefix}rl:${id}:log`, `${prefix}rl:${id}:total`])
  const call = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (cause) => new WindowStoreFailure({ cause }) })
  const decide = (charges: ReadonlyArray<WindowCharge>, ticket: string) =>
    Effect.map(
      call(() =>
        acquire(client, {
          keys: keysOf(charges.map((c) => c.id)),
          arguments: [String(windowMs), ticket, ...charges.flatMap((c) => [String(c.limit), String(Math.round(c.weight))])]
        })
      ),
      (reply): WindowDecision => {
          const values = (reply as ReadonlyArray<number | string>).map(Number)
          const retryAfterMs = values[0] ?? 0
          const states = charges.map((charge, i): WindowState => ({
            id: charge.id,
            limit: charge.limit,
            remaining: Math.max(0, charge.limit - (values[2 + 2 * i] ?? 0)),
            resetMs: values[3 + 2 * i] ?? 0
          }))
          return retryAfterMs === 0 ? { admitted: true, states } : { admitted: false, retryAfterMs, states, tooLarge: values[1] === 1 }
        }
      )
  return {
    name: "redis",
    acquire: decide,
    peek: (charges) => decide(charges, ""),
    adjust: (ticket, corrections) =>
      corrections.length === 0
        ? Effect.void
        : Effect.asVoid(
          call(() =>
            adjust(client, {
              keys: keysOf(corrections.map((c) => c.id)),
              arguments: [ticket, ...corrections.flatMap((c) => [String(Math.round(c.from)), String(Math.round(c.to))])]
            })
          )
        )
  }
}
