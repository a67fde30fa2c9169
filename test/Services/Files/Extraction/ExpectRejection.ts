import { assert, expect } from "@effect/vitest"
import { Effect } from "effect"
import type { GatewayError } from "../../../../src/Domain/GatewayError.ts"
import { statusOf } from "../../../../src/Http/ErrorResponse.ts"

/** Runs `effect`, which must fail with a 400 carrying `code` and a message that starts with the file name. */
export const expectRejection = <A, R>(effect: Effect.Effect<A, GatewayError, R>, filename: string, code: string) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(effect)
    expect(statusOf(error.reason).status).toBe(400)
    assert(error.reason._tag === "InvalidRequest")
    expect(error.reason.code).toBe(code)
    expect(error.reason.message.startsWith(`${filename}: `)).toBe(true)
    return error.reason.message
  })
