import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { EmbeddingInput, EmbeddingRequest } from "../../../src/Domain/EmbeddingRequest.ts"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import type { EmbeddingProvider } from "../../../src/Providers/EmbeddingProvider.ts"
import { errorFromStatus } from "../../../src/Providers/ProviderErrors.ts"
import { DeploymentHealth } from "../../../src/Services/Routing/DeploymentHealth.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { ModelCatalog } from "../../../src/Services/Catalog/ModelCatalog.ts"
import { ProviderRegistry } from "../../../src/Services/Routing/ProviderRegistry.ts"
import { ProviderRouter } from "../../../src/Services/Routing/ProviderRouter.ts"
import { AttemptLog } from "../../../src/Services/Routing/RoutedAttempts.ts"

/** A scripted embeddings provider: each call takes the next status (200 when none is left) from `statuses`. */
const scripted = (id: string, acceptsTokens: boolean, statuses: Array<number>, calls: Array<string>): EmbeddingProvider => ({
  id,
  acceptsTokens,
  embed: (request, target) =>
    Effect.suspend(() => {
      calls.push(`${id}:${target.upstreamModel}`)
      const status = statuses.shift() ?? 200
      if (status !== 200) return Effect.fail(errorFromStatus({ provider: id, status, message: `status ${status}`, header: () => undefined }))
      const count = request.input._tag === "Text" ? request.input.texts.length : request.input.tokens.length
      return Effect.succeed({ vectors: Array.from({ length: count }, () => [1, 2]), promptTokens: count })
    })
})

const config = Schema.decodeUnknownSync(GatewayConfig)({
  routing: { max_attempts: 6, attempts_per_model: 2, base_backoff_ms: 10, max_backoff_ms: 100, deadline_ms: 30_000 },
  providers: [
    { id: "oa", kind: "openai", base_url: "http://oa.invalid" },
    { id: "gm", kind: "gemini", base_url: "http://gm.invalid" }
  ],
  models: [
    {
      id: "mixed",
      kind: "embedding",
      deployments: [{ provider: "oa", model: "oa-emb" }, { provider: "gm", model: "gm-emb" }],
      capabilities: { dimensions: 8, matryoshka: true },
      fallbacks: ["fixed", "short"]
    },
    { id: "fixed", kind: "embedding", deployments: [{ provider: "oa", model: "fixed-emb" }], capabilities: { dimensions: 8 } },
    { id: "short", kind: "embedding", deployments: [{ provider: "gm", model: "short-emb" }], capabilities: { dimensions: 8, matryoshka: true } }
  ]
})

const routerWith = (scripts: { oa?: Array<number>; gm?: Array<number> }, calls: Array<string>) =>
  ProviderRouter.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(ModelCatalog.layer, DeploymentHealth.layerMemory)),
    Layer.provideMerge(
      ProviderRegistry.fromProviders([], [scripted("oa", true, scripts.oa ?? [], calls), scripted("gm", false, scripts.gm ?? [], calls)])
    ),
    Layer.provideMerge(GatewayConfigFile.fromConfig(config))
  )

const request = (input: EmbeddingInput, dimensions?: number): EmbeddingRequest => ({
  model: "mixed",
  input,
  encodingFormat: "float",
  extra: {},
  ...(dimensions === undefined ? {} : { dimensions })
})
const text: EmbeddingInput = { _tag: "Text", texts: ["a", "b"] }
const tokens: EmbeddingInput = { _tag: "Tokens", tokens: [[1, 2]] }

const embedAll = (input: EmbeddingRequest, log = new AttemptLog()) =>
  Effect.gen(function* () {
    const router = yield* ProviderRouter
    const model = (yield* ModelCatalog).find("mixed")!.config
    const fiber = yield* Effect.forkChild(Effect.exit(router.embed(model, input, log)))
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

describe("ProviderRouter.embed", () => {
  it.effect("retries on the model's other deployment after a 5xx, and names what served", () => {
    const calls: Array<string> = []
    // One script for both deployments: whichever is tried first fails.
    const shared = [503]
    return Effect.gen(function* () {
      const log = new AttemptLog()
      const exit = yield* embedAll(request(text), log)
      if (Exit.isFailure(exit)) throw new Error("expected success")
      expect(calls).toHaveLength(2)
      expect(new Set(calls.map((c) => c.split(":")[0]))).toEqual(new Set(["oa", "gm"]))
      expect(exit.value.served.model).toBe("mixed")
      expect(exit.value.result.vectors).toHaveLength(2)
      expect(log.attempts.map((a) => [a.outcome, a.status ?? null])).toEqual([["error", 503], ["ok", null]])
    }).pipe(Effect.provide(routerWith({ oa: shared, gm: shared }, calls)))
  })

  it.effect("sends token input only to providers that take it, and skips fallbacks that cannot", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const exit = yield* embedAll(request(tokens))
      expect(Exit.isFailure(exit)).toBe(true)
      // The OpenAI deployment of "mixed", then its fallback "fixed"; "short" is Gemini-only and
      // skipped although attempts remain.
      expect(calls).toEqual(["oa:oa-emb", "oa:oa-emb", "oa:fixed-emb", "oa:fixed-emb"])
    }).pipe(Effect.provide(routerWith({ oa: [500, 500, 500, 500, 500, 500] }, calls)))
  })

  it.effect("a fallback that cannot shorten is skipped when dimensions are asked", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const exit = yield* embedAll(request({ _tag: "Text", texts: ["a"] }, 4))
      if (Exit.isFailure(exit)) throw new Error("expected success")
      expect(calls.slice(-1)).toEqual(["gm:short-emb"])
      expect(calls).not.toContain("oa:fixed-emb")
      expect(exit.value.served.model).toBe("short")
    }).pipe(Effect.provide(routerWith({ oa: [500, 500], gm: [500] }, calls)))
  })

  it.effect("never retries a client mistake", () => {
    const calls: Array<string> = []
    return Effect.gen(function* () {
      const exit = yield* embedAll(request(tokens))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(calls).toEqual(["oa:oa-emb"])
    }).pipe(Effect.provide(routerWith({ oa: [400] }, calls)))
  })
})
