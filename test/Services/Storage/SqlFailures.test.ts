import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { SqlError } from "effect/sql"
import { typedSqlFailures } from "../../../src/Services/Storage/SqlFailures.ts"

const connectionLost = new SqlError.SqlError({ reason: new SqlError.ConnectionError({ cause: new Error("terminated"), message: "connection lost" }) })

describe("SQL-client defects become typed failures", () => {
  it.effect("a failed ROLLBACK (raised by the SQL client as a defect) is the SqlError it carries, and can be retried", () =>
    Effect.gen(function* () {
      let calls = 0
      const flaky = Effect.suspend(() => (++calls < 3 ? Effect.die(connectionLost) : Effect.succeed("written")))
      expect(yield* typedSqlFailures(flaky).pipe(Effect.retry({ times: 5 }))).toBe("written")
      expect(calls).toBe(3)
      const failed = yield* Effect.exit(typedSqlFailures(Effect.die(connectionLost)))
      expect(Exit.isFailure(failed) && Cause.findErrorOption(failed.cause)).toMatchObject({ _tag: "Some", value: connectionLost })
    }))

  it.effect("a statement failure and a rollback defect together: the connection error is the one reported", () =>
    Effect.gen(function* () {
      const statement = new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause: new Error("x"), message: "statement" }) })
      const both = Effect.failCause(Cause.combine(Cause.fail(statement), Cause.die(connectionLost)))
      const error = yield* Effect.flip(typedSqlFailures(both))
      expect(error).toBe(connectionLost)
    }))

  it.effect("any other defect of the SQL client is an UnknownError carrying it; failures and interruptions are untouched", () =>
    Effect.gen(function* () {
      const thrown = new TypeError("socket closed")
      const error = yield* Effect.flip(typedSqlFailures(Effect.die(thrown)))
      expect(error.reason._tag).toBe("UnknownError")
      expect(error.reason.cause).toBe(thrown)
      expect(yield* Effect.flip(typedSqlFailures(Effect.fail("typed" as const)))).toBe("typed")
      const interrupted = yield* Effect.exit(typedSqlFailures(Effect.interrupt))
      expect(Exit.isFailure(interrupted) && Cause.hasInterruptsOnly(interrupted.cause)).toBe(true)
    }))
})
