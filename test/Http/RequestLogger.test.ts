import { describe, expect, it } from "@effect/vitest"
import { Console, Effect, Logger } from "effect"
import { HttpServerRequest } from "effect/http"
import type { Principal } from "../../src/Domain/ApiKey.ts"
import { CurrentPrincipal } from "../../src/Http/Authentication.ts"
import { requestIdOf } from "../../src/Http/Handler.ts"
import { requestJsonLogger } from "../../src/Http/RequestLogger.ts"

const principal: Principal = {
  keyId: "key_abc",
  keySeq: 1,
  projectSeq: 1,
  projectId: "proj_xyz",
  userId: null,
  scopes: new Set(["chat"]),
  expiresAt: null
}

/** Runs `effect` with the request logger and returns the lines it wrote, parsed. */
const linesOf = (effect: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const console = { ...globalThis.console, log: (line: string) => void lines.push(line) }
    yield* effect.pipe(Effect.provide(Logger.layer([requestJsonLogger])), Effect.provideService(Console.Console, console as Console.Console))
    return lines.map((line) => JSON.parse(line) as { message: unknown; level: string; annotations: Record<string, unknown> } & Record<string, unknown>)
  })

describe("requestJsonLogger", () => {
  it.effect("names the request and, once the key is checked, its project and key", () =>
    Effect.gen(function* () {
      const request = HttpServerRequest.fromWeb(new Request("http://localhost/v1/chat/completions"))
      const [before, after] = yield* linesOf(
        Effect.gen(function* () {
          yield* Effect.logWarning("before auth")
          yield* Effect.logWarning("after auth").pipe(Effect.provideService(CurrentPrincipal, principal))
        }).pipe(Effect.annotateLogs("upstream", "openai"), Effect.provideService(HttpServerRequest.HttpServerRequest, request))
      )
      // The request's fields sit beside time and level, named as on access-log lines.
      expect(before).toMatchObject({ log: "app", message: "before auth", level: "WARN", request_id: requestIdOf(request), annotations: { upstream: "openai" } })
      expect(before).not.toHaveProperty("project_id")
      expect(after).toMatchObject({ request_id: requestIdOf(request), project_id: "proj_xyz", key_id: "key_abc", annotations: { upstream: "openai" } })
      expect(after!.annotations).toEqual({ upstream: "openai" })
      expect(Object.keys(after!).slice(0, 6)).toEqual(["time", "level", "log", "request_id", "project_id", "key_id"])
      expect(after!["time"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(after).not.toHaveProperty("timestamp")
      expect(requestIdOf(request)).toMatch(/^req_/)
    }))

  it.effect("writes a line outside any request without request fields", () =>
    Effect.gen(function* () {
      const [line] = yield* linesOf(Effect.logError("usage write failed").pipe(Effect.annotateLogs("batch", 3)))
      expect(line).toMatchObject({ log: "app", message: "usage write failed", level: "ERROR", annotations: { batch: 3 } })
      expect(line!.annotations).not.toHaveProperty("request_id")
      expect(line).not.toHaveProperty("request_id")
    }))

  it("gives a request the same id however often it is asked, and another request another", () => {
    const a = HttpServerRequest.fromWeb(new Request("http://localhost/a"))
    const b = HttpServerRequest.fromWeb(new Request("http://localhost/b"))
    expect(requestIdOf(a)).toBe(requestIdOf(a))
    expect(requestIdOf(a)).not.toBe(requestIdOf(b))
  })
})
