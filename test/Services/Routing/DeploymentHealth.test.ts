import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { RoutingSettings } from "../../../src/Domain/GatewayConfig.ts"
import { DeploymentHealth } from "../../../src/Services/Routing/DeploymentHealth.ts"
import type { FailureReport, HealthSnapshot, SharedHealthStore } from "../../../src/Services/Routing/DeploymentHealthStores.ts"
import { LocalHealth } from "../../../src/Services/Routing/LocalHealth.ts"

const routing = Schema.decodeUnknownSync(RoutingSettings)({ failure_threshold: 2, cooldown_seconds: 30 })

/** A shared store that can be switched off, and records what reached it in order. */
const flakyStore = () => {
  const received: Array<string> = []
  let up = false
  let snapshot: HealthSnapshot = { openUntil: new Map(), failing: new Set() }
  const guard = <A>(effect: Effect.Effect<A>) => Effect.suspend(() => (up ? effect : Effect.fail(new Error("store is away"))))
  const store: SharedHealthStore = {
    name: "Fake",
    snapshot: guard(Effect.sync(() => snapshot)),
    recordFailure: (key: string, _report: FailureReport) => guard(Effect.sync(() => void received.push(`failure ${key}`))),
    recordSuccess: (key: string) => guard(Effect.sync(() => void received.push(`success ${key}`)))
  }
  return {
    store,
    received,
    setUp: (value: boolean) => {
      up = value
    },
    setSnapshot: (value: HealthSnapshot) => {
      snapshot = value
    }
  }
}

describe("DeploymentHealth", () => {
  it.live("works on local state while the shared store is away, then hands it every report in order", () =>
    Effect.gen(function* () {
      const fake = flakyStore()
      const health = yield* DeploymentHealth.make(new LocalHealth(routing), fake.store)
      const now = Date.now()
      yield* health.recordFailure("a/m", { now })
      yield* health.recordFailure("a/m", { now })
      expect(yield* health.isOpen("a/m")).toBe(true)
      yield* health.recordSuccess("a/m")
      expect(yield* health.isOpen("a/m")).toBe(false)
      // A deployment with no failures anywhere reports nothing.
      yield* health.recordSuccess("b/m")
      yield* health.sync
      expect(fake.received).toEqual([])
      fake.setUp(true)
      yield* health.sync
      expect(fake.received).toEqual(["failure a/m", "failure a/m", "success a/m"])
      yield* health.sync
      expect(fake.received).toHaveLength(3)
    }).pipe(Effect.scoped)
  )

  it.live("a circuit another instance opened is open here after the next sync", () =>
    Effect.gen(function* () {
      const fake = flakyStore()
      fake.setUp(true)
      const health = yield* DeploymentHealth.make(new LocalHealth(routing), fake.store)
      expect(yield* health.isOpen("c/m")).toBe(false)
      fake.setSnapshot({ openUntil: new Map([["c/m", Date.now() + 60_000]]), failing: new Set(["c/m"]) })
      yield* health.sync
      expect(yield* health.isOpen("c/m")).toBe(true)
      // A success here resets the shared count too.
      yield* health.recordSuccess("c/m")
      yield* health.sync
      expect(fake.received).toEqual(["success c/m"])
    }).pipe(Effect.scoped)
  )

  it("a retry-after opens the local circuit for that long, below the threshold", () => {
    const local = new LocalHealth(routing)
    local.failure("d/m", { now: 1_000, retryAfterMs: 5_000 })
    expect(local.openUntil("d/m")).toBe(6_000)
    local.failure("d/m", { now: 2_000 })
    expect(local.openUntil("d/m")).toBe(32_000)
  })
})
