import { Effect, Schema } from "effect"
import { expect } from "@effect/vitest"
import type { WindowStore } from "../../src/Services/RateLimits/WindowStore.ts"

/** A window's limit and the weights of the requests sent against it, for the leased stores' property. */
export const WindowLoad = {
  limit: Schema.Int.check(Schema.isBetween({ minimum: 20, maximum: 400 })),
  weights: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3 }))).check(Schema.isMinLength(1), Schema.isMaxLength(300))
}

/**
 * Sends `weights` against window `id`, alternating between `stores` (two instances), 16 at a
 * time, and checks what the admitted weight must be: within the limit, and everything when
 * everything fits in half of it. Answers the admitted weight, for the store's own count.
 */
export const admittedAcross = async (stores: ReadonlyArray<WindowStore>, id: string, limit: number, weights: ReadonlyArray<number>): Promise<number> => {
  const decisions = await Effect.runPromise(
    Effect.all(weights.map((weight, i) => stores[i % stores.length]!.acquire([{ id, limit, weight }], `t${i}`)), { concurrency: 16 })
  )
  const admitted = weights.filter((_, i) => decisions[i]!.admitted).reduce((a, b) => a + b, 0)
  expect(admitted).toBeLessThanOrEqual(limit)
  // Refused only when even the request alone did not fit what was left.
  const sent = weights.reduce((a, b) => a + b, 0)
  if (sent <= limit / 2) expect(admitted).toBe(sent)
  return admitted
}
