import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { ChatCompletion } from "../../../src/Domain/ChatCompletion.ts"
import { decodeChatRequest } from "../../../src/Domain/ChatRequestDecoder.ts"
import type { ChatStreamEvent } from "../../../src/Domain/ChatStreamEvent.ts"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import type { GatewayError } from "../../../src/Domain/GatewayError.ts"
import type { ChatProvider } from "../../../src/Providers/ChatProvider.ts"
import { errorFromStatus } from "../../../src/Providers/ProviderErrors.ts"
import { DeploymentHealth } from "../../../src/Services/Routing/DeploymentHealth.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { ModelCatalog } from "../../../src/Services/Catalog/ModelCatalog.ts"
import { ProviderRegistry } from "../../../src/Services/Routing/ProviderRegistry.ts"
import { ProviderRouter } from "../../../src/Services/Routing/ProviderRouter.ts"
import { AttemptLog } from "../../../src/Services/Routing/RoutedAttempts.ts"
import { within } from "../../../src/Streams/Deadline.ts"

/** One scripted provider call: succeed, fail with an HTTP status (and retry-after), or never answer. */
export type Step = "ok" | "hang" | { readonly status: number; readonly retryAfter?: number } | { readonly streamFailAfterCommit: true }

const completion: ChatCompletion = {
  choices: [{ index: 0, message: { role: "assistant", content: "hi", refusal: null }, finish_reason: "stop", logprobs: null }],
  usage: { promptTokens: 1, completionTokens: 1 }
}

const failWith = (provider: string, status: number, retryAfter?: number): GatewayError =>
  errorFromStatus({
    provider,
    status,
    message: `status ${status}`,
    header: (name) => (name === "retry-after" && retryAfter !== undefined ? String(retryAfter) : undefined)
  })

const scripted = (id: string, steps: Array<Step>, calls: Array<string>): ChatProvider => {
  const next = (): Step => steps.shift() ?? "ok"
  return {
    id,
    complete: (_request, _target, deadline) =>
      Effect.suspend(() => {
        calls.push(id)
        const step = next()
        if (step === "ok") return Effect.succeed(completion)
        // A provider that never answers: as an adapter's upstream exchange does, the call ends
        // with the deadline's error when the routing deadline the router passes runs out.
        if (step === "hang") return deadline === undefined ? Effect.never : within(Effect.never, deadline)
        if ("status" in step) return Effect.fail(failWith(id, step.status, step.retryAfter))
        return Effect.succeed(completion)
      }),
    stream: () =>
      Stream.suspend(() => {
        calls.push(id)
        const step = next()
        const text: ReadonlyArray<ChatStreamEvent> = [{ _tag: "TextDelta", choice: 0, text: `from ${id}` }]
        if (step === "ok") return Stream.fromIterable([...text, { _tag: "Finish", choice: 0, reason: "stop" } as const])
        if (step === "hang") return Stream.never
        if ("status" in step) return Stream.fail(failWith(id, step.status, step.retryAfter))
        return Stream.concat(Stream.fromIterable(text), Stream.fail(failWith(id, 500)))
      })
  }
}

const baseRouting = { max_attempts: 4, attempts_per_model: 2, base_backoff_ms: 100, max_backoff_ms: 10_000, deadline_ms: 30_000, failure_threshold: 2, cooldown_seconds: 60 }
const makeConfig = (routing: Partial<typeof baseRouting> = {}) => Schema.decodeUnknownSync(GatewayConfig)({
  routing: { ...baseRouting, ...routing },
  providers: [
    { id: "a", kind: "openai", base_url: "http://a.invalid" },
    { id: "b", kind: "openai", base_url: "http://b.invalid" },
    { id: "c", kind: "openai", base_url: "http://c.invalid" }
  ],
  models: [
    { id: "main", kind: "chat", deployments: [{ provider: "a", model: "a-1" }], fallbacks: ["backup", "vision-only"] },
    { id: "backup", kind: "chat", deployments: [{ provider: "b", model: "b-1" }] },
    { id: "vision-only", kind: "chat", deployments: [{ provider: "c", model: "c-1" }], capabilities: { vision: true } },
    { id: "pair", kind: "chat", deployments: [{ provider: "a", model: "a-1" }, { provider: "b", model: "b-1" }] }
  ]
})

export const routerWith = (providers: Record<string, Array<Step>>, calls: Array<string>, routing: Partial<typeof baseRouting> = {}) =>
  ProviderRouter.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(ModelCatalog.layer, DeploymentHealth.layerMemory)),
    Layer.provideMerge(
      ProviderRegistry.fromProviders(
        Object.entries({ a: [], b: [], c: [], ...providers }).map(([id, steps]) => scripted(id, steps, calls))
      )
    ),
    Layer.provideMerge(GatewayConfigFile.fromConfig(makeConfig(routing)))
  )

export const request = Effect.runSync(decodeChatRequest({ model: "main", messages: [{ role: "user", content: "hi" }] }))
export const modelOf = (id: string) => Effect.map(ModelCatalog, (c) => c.find(id)!.config)

describe("ProviderRouter", () => {
  it.effect("falls back to the next model on 503, and names the model used", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const log = new AttemptLog()
      const fiber = yield* Effect.forkChild(router.complete(yield* modelOf("main"), request, log))
      yield* TestClock.adjust("1 minute")
      const result = yield* Fiber.join(fiber)
      expect(result.served).toEqual({ model: "backup", provider: "b", upstreamModel: "b-1" })
      expect(calls).toEqual(["a", "a", "b"])
      expect(log.attempts.map((a) => a.outcome)).toEqual(["error", "error", "ok"])
    }).pipe(Effect.provide(routerWith({ a: [{ status: 503 }, { status: 503 }] }, calls)))
  })

  it.effect("never retries a client mistake", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const exit = yield* Effect.exit(router.complete(yield* modelOf("main"), request, new AttemptLog()))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(calls).toEqual(["a"])
    }).pipe(Effect.provide(routerWith({ a: [{ status: 400 }] }, calls)))
  })

  it.effect("honours retry-after before calling the same deployment again", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(router.complete(yield* modelOf("backup"), request, new AttemptLog()))
      yield* TestClock.adjust("2900 millis")
      expect(calls).toEqual(["b"])
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(fiber)
      expect(calls).toEqual(["b", "b"])
    }).pipe(Effect.provide(routerWith({ b: [{ status: 429, retryAfter: 3 }] }, calls)))
  })

  it.effect("opens the circuit after repeated failures and closes it after the cool-down", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const health = yield* DeploymentHealth
      const pair = yield* modelOf("pair")
      // Two failures of a/a-1 (threshold 2) open its circuit.
      for (let i = 0; i < 2; i++) {
        const fiber = yield* Effect.forkChild(router.complete(yield* modelOf("main"), request, new AttemptLog()))
        yield* TestClock.adjust("5 seconds")
        yield* Fiber.await(fiber)
      }
      expect(yield* health.isOpen("a/a-1")).toBe(true)
      calls.length = 0
      for (let i = 0; i < 5; i++) yield* router.complete(pair, request, new AttemptLog())
      expect(calls).toEqual(["b", "b", "b", "b", "b"])
      yield* TestClock.adjust("61 seconds")
      expect(yield* health.isOpen("a/a-1")).toBe(false)
      // Half-open: the next call may try a again.
      calls.length = 0
      yield* router.complete(yield* modelOf("main"), request, new AttemptLog())
      expect(calls).toEqual(["a"])
    }).pipe(Effect.provide(routerWith({ a: [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }] }, calls)))
  })

  it.effect("skips fallbacks that cannot take the request", () => {
    const calls: Array<string> = []
    const withImage = Effect.runSync(
      decodeChatRequest({ model: "main", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x.test/a.png" } }] }] })
    )
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(Effect.exit(router.complete(yield* modelOf("main"), withImage, new AttemptLog())))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      // main has no vision, and neither has backup; only vision-only could, and it does.
      expect(calls).toEqual(["a", "a", "c"])
    }).pipe(Effect.provide(routerWith({ a: [{ status: 500 }, { status: 500 }] }, calls)))
  })

  it.effect("answers 429 with the shortest retry-after when every route is throttled", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(Effect.exit(router.complete(yield* modelOf("pair"), request, new AttemptLog())))
      yield* TestClock.adjust("5 minutes")
      const exit = yield* Fiber.join(fiber)
      if (!Exit.isFailure(exit)) throw new Error("expected failure")
      const error = exit.cause.reasons.find((r) => r._tag === "Fail")
      expect(error?._tag === "Fail" && error.error.reason._tag).toBe("RateLimited")
    }).pipe(Effect.provide(routerWith({ a: [{ status: 429, retryAfter: 20 }], b: [{ status: 429, retryAfter: 20 }] }, calls)))
  })

  it.effect("holds the deadline when a provider never answers", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(Effect.exit(router.complete(yield* modelOf("backup"), request, new AttemptLog())))
      yield* TestClock.adjust("29 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.join(fiber)
      if (!Exit.isFailure(exit)) throw new Error("expected failure")
      const error = exit.cause.reasons.find((r) => r._tag === "Fail")
      expect(error?._tag === "Fail" && error.error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "timeout" })
    }).pipe(Effect.provide(routerWith({ b: ["hang"] }, calls)))
  })

  it.effect("falls back invisibly when a stream fails before its first content", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(Stream.runCollect(router.stream(yield* modelOf("main"), request, new AttemptLog())))
      yield* TestClock.adjust("1 minute")
      const events = yield* Fiber.join(fiber)
      const texts = events.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : []))
      expect(texts).toEqual(["from b"])
      const served = events.filter((e) => e._tag === "Served").map((e) => (e._tag === "Served" ? e.served.model : ""))
      expect(served.at(-1)).toBe("backup")
    }).pipe(Effect.provide(routerWith({ a: [{ status: 503 }, { status: 503 }] }, calls)))
  })

  it.effect("logs each stream attempt once: the failures, then the route that served", () => {
    const calls: Array<string> = []
    const log = new AttemptLog()
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(Stream.runDrain(router.stream(yield* modelOf("main"), request, log)))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      expect(log.attempts.map((a) => [a.provider, a.outcome, a.status])).toEqual([["a", "error", 503], ["a", "error", 503], ["b", "ok", undefined]])
    }).pipe(Effect.provide(routerWith({ a: [{ status: 503 }, { status: 503 }] }, calls)))
  })

  it.effect("logs the attempt of an interrupted stream as cancelled", () => {
    const calls: Array<string> = []
    const log = new AttemptLog()
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const fiber = yield* Effect.forkChild(Stream.runDrain(router.stream(yield* modelOf("main"), request, log)))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      expect(log.attempts.map((a) => [a.provider, a.outcome])).toEqual([["a", "cancelled"]])
    }).pipe(Effect.provide(routerWith({ a: ["hang"] }, calls)))
  })

  it.effect("does not switch routes once a stream has committed", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const exit = yield* Effect.exit(Stream.runCollect(router.stream(yield* modelOf("main"), request, new AttemptLog())))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(calls).toEqual(["a"])
    }).pipe(Effect.provide(routerWith({ a: [{ streamFailAfterCommit: true }] }, calls)))
  })
})

const Outcome = Schema.Union([
  Schema.Literal("ok"),
  Schema.Struct({ status: Schema.Literals([400, 401, 404, 408, 429, 500, 502, 503, 529]), retryAfter: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 30 }))) })
])
const Schedule_ = Schema.Struct({
  a: Schema.Array(Outcome).check(Schema.isMaxLength(8)),
  b: Schema.Array(Outcome).check(Schema.isMaxLength(8)),
  c: Schema.Array(Outcome).check(Schema.isMaxLength(8)),
  maxAttempts: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 6 })),
  perModel: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3 })),
  model: Schema.Literals(["main", "pair", "backup"]),
  stream: Schema.Boolean
})

describe("ProviderRouter under random failure schedules", () => {
  it.effect.prop("stays within its attempt bound and ends in a success or a typed error", [Schedule_], ([schedule]) => {
    const calls: Array<string> = []
    const steps = (list: ReadonlyArray<typeof Outcome.Type>): Array<Step> => list.map((o) => (o === "ok" ? "ok" : { ...o }))
    return Effect.gen(function* () {
      const router = yield* ProviderRouter
      const model = yield* modelOf(schedule.model)
      const call = schedule.stream
        ? Effect.asVoid(Stream.runDrain(router.stream(model, request, new AttemptLog())))
        : Effect.asVoid(router.complete(model, request, new AttemptLog()))
      const fiber = yield* Effect.forkChild(Effect.exit(call))
      yield* TestClock.adjust("10 minutes")
      const exit = yield* Fiber.join(fiber)
      expect(calls.length).toBeLessThanOrEqual(schedule.maxAttempts)
      expect(calls.length).toBeGreaterThanOrEqual(1)
      if (Exit.isFailure(exit)) {
        // Only typed failures: no defect, no interruption.
        expect(exit.cause.reasons.every((r) => r._tag === "Fail" && r.error._tag === "GatewayError")).toBe(true)
      }
    }).pipe(
      Effect.provide(
        routerWith({ a: steps(schedule.a), b: steps(schedule.b), c: steps(schedule.c) }, calls, {
          max_attempts: schedule.maxAttempts,
          attempts_per_model: schedule.perModel
        })
      )
    )
  })
})
