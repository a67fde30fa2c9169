import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { GatewayError, UpstreamFailure } from "../../../src/Domain/GatewayError.ts"
import { errorFromStatus } from "../../../src/Providers/ProviderErrors.ts"
import { attemptPolicy } from "../../../src/Services/Routing/AttemptPolicy.ts"
import { AttemptLog, commits } from "../../../src/Services/Routing/RoutedAttempts.ts"
import { type Candidate, RoutePlanner } from "../../../src/Services/Routing/RoutePlanner.ts"
import { makeDeadline } from "../../../src/Streams/Deadline.ts"

const config = Schema.decodeUnknownSync(GatewayConfig)({
  routing: { max_attempts: 4, attempts_per_model: 1, base_backoff_ms: 1, max_backoff_ms: 1, deadline_ms: 1_000 },
  providers: [
    { id: "a", kind: "openai", base_url: "http://a.invalid" },
    { id: "b", kind: "openai", base_url: "http://b.invalid" }
  ],
  models: [
    { id: "main", kind: "chat", deployments: [{ provider: "a", model: "a-1" }], fallbacks: ["backup"] },
    { id: "backup", kind: "chat", deployments: [{ provider: "b", model: "b-1" }] }
  ]
})
const unavailable = errorFromStatus({ provider: "a", status: 503, message: "down", header: () => undefined })
const late = () => new GatewayError({ reason: new UpstreamFailure({ message: "late", provider: "gateway", kind: "timeout" }) })

/** A policy over main -> backup, recording into `outcomes`; `withCommitPoint` gives it the stream's commit point. */
const policyOf = (withCommitPoint: boolean) =>
  Effect.clockWith((clock) =>
    Effect.sync(() => {
      const log = new AttemptLog()
      const outcomes: Array<string> = []
      const policy = attemptPolicy(
        {
          record: (candidate, _log, _startedAt, error, cancelled) =>
            Effect.sync(() => {
              outcomes.push(`${candidate.deployment.provider}:${cancelled === true ? "cancelled" : error === undefined ? "ok" : "error"}`)
            }),
          finalError: () => GatewayError.internal("no route left")
        },
        {
          model: config.models[0]!,
          planner: new RoutePlanner(config.models, config.routing, () => false, () => 0.5),
          log,
          deadline: makeDeadline(clock, 1_000, late),
          ...(withCommitPoint ? { commits } : {})
        }
      )
      return { policy, log, outcomes }
    })
  )

describe("AttemptPolicy: one retry and fallback policy, the commit point its one parameter", () => {
  it.effect("before the commit point a failure moves on to the next route", () =>
    Effect.gen(function* () {
      const { policy, log, outcomes } = yield* policyOf(true)
      const first: Candidate = yield* policy.next(undefined)
      expect(first.deployment.provider).toBe("a")
      expect(policy.observe([{ _tag: "Usage", usage: { promptTokens: 1, completionTokens: 0 } }])).toBe(false)
      yield* policy.failed(first, 0, unavailable)
      // The backoff is a sleep on the clock.
      const waiting = yield* Effect.forkChild(policy.next(unavailable))
      yield* TestClock.adjust(5)
      const second = yield* Fiber.join(waiting)
      expect(second.deployment.provider).toBe("b")
      expect(outcomes).toEqual(["a:error"])
      expect(log.started).toBe(2)
    }))

  it.effect("after the commit point a failure is the client's: no fallback, the attempt logged as failed", () =>
    Effect.gen(function* () {
      const { policy, outcomes } = yield* policyOf(true)
      const first = yield* policy.next(undefined)
      expect(policy.observe([{ _tag: "TextDelta", choice: 0, text: "hi" }])).toBe(true)
      expect(yield* Effect.exit(policy.failed(first, 0, unavailable))).toEqual(Exit.fail(unavailable))
      expect(outcomes).toEqual(["a:error"])
    }))

  it.effect("a call has no commit point: content never commits it, only success ends it", () =>
    Effect.gen(function* () {
      const { policy, outcomes } = yield* policyOf(false)
      const first = yield* policy.next(undefined)
      expect(policy.observe([{ _tag: "TextDelta", choice: 0, text: "hi" }])).toBe(false)
      expect(Exit.isSuccess(yield* Effect.exit(policy.failed(first, 0, unavailable)))).toBe(true)
      expect(outcomes).toEqual(["a:error"])
    }))

  it.effect("past the deadline a failure ends the request with the deadline's error, the attempt cancelled", () =>
    Effect.gen(function* () {
      const { policy, outcomes } = yield* policyOf(true)
      const first = yield* policy.next(undefined)
      yield* TestClock.adjust(1_000)
      const exit = yield* Effect.exit(policy.failed(first, 0, unavailable))
      expect(exit).toEqual(Exit.fail(policy.deadline.error()))
      expect(outcomes).toEqual(["a:cancelled"])
      expect(yield* Effect.exit(policy.next(unavailable))).toEqual(Exit.fail(policy.deadline.error()))
    }))
})
