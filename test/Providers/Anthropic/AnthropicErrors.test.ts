import { describe, expect, it } from "@effect/vitest"
import { anthropicError } from "../../../src/Providers/Anthropic/AnthropicErrors.ts"
import { anthropicErrorBody } from "../../support/AnthropicFixtures.ts"

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  anthropicError("anthropic", { status, header: (name) => headers[name] }, typeof body === "string" ? body : JSON.stringify(body))

describe("Anthropic error bodies", () => {
  it("reports 400 and 413 as the client's mistake in Anthropic's words", () => {
    const bad = answer(400, anthropicErrorBody("invalid_request_error", "messages: roles must alternate"))
    expect(bad.reason).toMatchObject({ _tag: "InvalidRequest", message: "messages: roles must alternate" })
    expect(bad.isRetryable).toBe(false)
    expect(answer(413, anthropicErrorBody("request_too_large", "Request exceeds the maximum size")).reason._tag).toBe("InvalidRequest")
  })

  it("maps 529 overloaded_error to a retryable overload", () => {
    const error = answer(529, anthropicErrorBody("overloaded_error", "Overloaded"))
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "overloaded", status: 529 })
    expect(error.isRetryable).toBe(true)
  })

  it("maps 429 rate_limit_error with retry-after to a retryable rate limit with the delay", () => {
    const error = answer(429, anthropicErrorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), { "retry-after": "12" })
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "rate_limited", status: 429 })
    expect(error.reason.message).toContain("per-minute rate limit")
    expect(error.retryAfterMs).toBe(12_000)
  })

  it("keeps credentials, missing models and server errors on the gateway's side", () => {
    expect(answer(401, anthropicErrorBody("authentication_error", "invalid x-api-key")).reason).toMatchObject({ kind: "auth", status: 401 })
    expect(answer(403, anthropicErrorBody("permission_error", "no access")).reason).toMatchObject({ kind: "auth", status: 403 })
    expect(answer(404, anthropicErrorBody("not_found_error", "model: claude-x")).reason).toMatchObject({ kind: "rejected", status: 404 })
    const server = answer(500, anthropicErrorBody("api_error", "Internal server error"))
    expect(server.reason).toMatchObject({ kind: "server", status: 500 })
    expect(server.isRetryable).toBe(true)
  })

  it("keeps a body that is not JSON as the message", () => {
    const error = answer(413, "<html><body>413 Request Entity Too Large</body></html>")
    expect(error.reason.message).toContain("413 Request Entity Too Large")
  })
})
