import { type Target, throughputShare } from "./Measure.ts"
import type { Check, ScenarioResult } from "./Report.ts"

/**
 * The billed and rate-limited keys beside the unlimited one: every gateway the bench starts
 * serves three keys of three projects (CreateKey.ts) — no credit or limits, a credit balance it
 * never runs out of, and per-key RPM/TPM limits it never reaches — measured as three targets of
 * the same process in the same run. Gateways differ by storage: embedded, Postgres
 * (`--postgres URL`), each with and without Redis (`--redis URL`).
 */

export interface BenchKeys {
  readonly secret: string
  readonly billedSecret: string
  readonly limitedSecret: string
}

export const keyedTargets = (gateway: Target, keys: BenchKeys): Array<Target> => [
  { ...gateway, name: `${gateway.name}-billed`, headers: { authorization: `Bearer ${keys.billedSecret}` } },
  { ...gateway, name: `${gateway.name}-limited`, headers: { authorization: `Bearer ${keys.limitedSecret}` } }
]

export interface StorageFamily {
  readonly name: string
  readonly env: Record<string, string>
}

/** The gateways beyond the embedded one without Redis (which the bench always starts as `gateway`). */
export const storageFamilies = (postgres: string | undefined, redis: string | undefined, prefix: string): Array<StorageFamily> => {
  const withRedis = (name: string) => ({ REDIS_URL: redis!, REDIS_PREFIX: `${prefix}${name}:` })
  const families: Array<StorageFamily> = []
  if (redis !== undefined) families.push({ name: "gateway-redis", env: withRedis("gateway-redis") })
  if (postgres !== undefined) {
    families.push({ name: "gateway-pg", env: { DATABASE_URL: postgres } })
    if (redis !== undefined) families.push({ name: "gateway-pg-redis", env: { DATABASE_URL: postgres, ...withRedis("gateway-pg-redis") } })
  }
  return families
}

/**
 * Issue targets, per gateway: the billed key at c=64 at least 90% of the unlimited key's req/s and
 * at c=1 within +0.05 ms of its p50; the rate-limited key at least 80% without Redis, 90% with it.
 */
export const billingChecks = (results: ReadonlyArray<ScenarioResult>): Array<Check> => {
  const checks: Array<Check> = []
  const at = (c: number) => results.find((r) => r.scenario === "chat" && r.connections === c && !r.awake)?.summaries
  const busy = at(64)
  const single = at(1)
  for (const name of busy === undefined ? [] : [...busy.keys()].filter((n) => busy.has(`${n}-billed`))) {
    const plain = busy!.get(name)!
    const billed = busy!.get(`${name}-billed`)!
    const limited = busy!.get(`${name}-limited`)
    // Shares of the same rounds (`throughputShare`): the three keys are measured one after another.
    const billedShare = throughputShare(billed, plain)
    checks.push({
      target: `chat c=64 on ${name}: billed key at least 90% of the unlimited key's req/s`,
      measured: `${(billedShare * 100).toFixed(0)}% (medians ${billed.rps.toFixed(0)} vs ${plain.rps.toFixed(0)})`,
      ok: billedShare >= 0.9
    })
    if (limited !== undefined) {
      const min = name.includes("redis") ? 0.9 : 0.8
      const limitedShare = throughputShare(limited, plain)
      checks.push({
        target: `chat c=64 on ${name}: rate-limited key at least ${min * 100}% of the unlimited key's req/s`,
        measured: `${(limitedShare * 100).toFixed(0)}% (medians ${limited.rps.toFixed(0)} vs ${plain.rps.toFixed(0)})`,
        ok: limitedShare >= min
      })
    }
    const one = single?.get(name)
    const oneBilled = single?.get(`${name}-billed`)
    if (one !== undefined && oneBilled !== undefined) {
      const added = oneBilled.p50 - one.p50
      checks.push({
        target: `chat c=1 on ${name}: billed key's p50 within +0.05 ms of the unlimited key's`,
        measured: `${added >= 0 ? "+" : ""}${added.toFixed(3)} ms (${oneBilled.p50.toFixed(3)} vs ${one.p50.toFixed(3)})`,
        ok: added <= 0.05
      })
    }
  }
  return checks
}
