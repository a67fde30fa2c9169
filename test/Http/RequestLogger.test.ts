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
    return lines.map((line) => JSON.parse(line) as { message: unknown; level: string; annotations: Record<string, unknown> })
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
      expect(before).toMatchObject({ message: "before auth", level: "WARN", annotations: { request_id: requestIdOf(request), upstream: "openai" } })
      expect(before!.annotations).not.toHaveProperty("project_id")
      expect(after!.annotations).toEqual({ request_id: requestIdOf(request), project_id: "proj_xyz", key_id: "key_abc", upstream: "openai" })
      expect(requestIdOf(request)).toMatch(/^req_/)
    }))

  it.effect("writes a line outside any request without request fields", () =>
    Effect.gen(function* () {
      const [line] = yield* linesOf(Effect.logError("usage write failed").pipe(Effect.annotateLogs("batch", 3)))
      expect(line).toMatchObject({ message: "usage write failed", level: "ERROR", annotations: { batch: 3 } })
      expect(line!.annotations).not.toHaveProperty("request_id")
    }))

  it("gives a request the same id however often it is asked, and another request another", () => {
    const a = HttpServerRequest.fromWeb(new Request("http://localhost/a"))
    const b = HttpServerRequest.fromWeb(new Request("http://localhost/b"))
    expect(requestIdOf(a)).toBe(requestIdOf(a))
    expect(requestIdOf(a)).not.toBe(requestIdOf(b))
  })
})
