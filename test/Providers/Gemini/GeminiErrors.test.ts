import { describe, expect, it } from "@effect/vitest"
import { durationMs, geminiError } from "../../../src/Providers/Gemini/GeminiErrors.ts"

const response = (status: number, headers: Record<string, string> = {}) => ({ status, header: (name: string) => headers[name] })
const rpc = (code: number, status: string, message: string, details: ReadonlyArray<unknown> = []) =>
  JSON.stringify({ error: { code, status, message, details } })
const retryInfo = (delay: string) => ({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay })

describe("geminiError", () => {
  it("takes the wait of a 429 from RetryInfo when there is no retry-after header", () => {
    const error = geminiError("gemini", response(429), rpc(429, "RESOURCE_EXHAUSTED", "quota", [retryInfo("7s")]))
    expect(error.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "rate_limited", status: 429 })
    expect(error.retryAfterMs).toBe(7000)
    expect(error.isRetryable).toBe(true)
  })

  it("prefers a retry-after header over RetryInfo", () => {
    expect(geminiError("gemini", response(429, { "retry-after": "2" }), rpc(429, "RESOURCE_EXHAUSTED", "q", [retryInfo("30s")])).retryAfterMs).toBe(2000)
  })

  it("reads fractional RetryInfo delays, and has no wait without one", () => {
    expect(geminiError("gemini", response(429), rpc(429, "RESOURCE_EXHAUSTED", "q", [retryInfo("1.5s")])).retryAfterMs).toBe(1500)
    expect(geminiError("gemini", response(429), rpc(429, "RESOURCE_EXHAUSTED", "q")).retryAfterMs).toBeUndefined()
  })

  it("makes 400 INVALID_ARGUMENT the client's mistake, in the provider's words", () => {
    const error = geminiError("gemini", response(400), rpc(400, "INVALID_ARGUMENT", "Request contains an invalid argument."))
    expect(error.reason).toMatchObject({ _tag: "InvalidRequest", message: "Request contains an invalid argument." })
  })

  it("keeps an invalid gateway API key and a failed precondition on the gateway's side", () => {
    const key = geminiError(
      "gemini",
      response(400),
      rpc(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }
      ])
    )
    expect(key.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "auth" })
    const region = geminiError("gemini", response(400), rpc(400, "FAILED_PRECONDITION", "User location is not supported for the API use."))
    expect(region.reason).toMatchObject({ _tag: "UpstreamFailure", kind: "rejected" })
    expect(region.isRetryable).toBe(false)
  })

  it("maps 403, 404, 500 and 503 by status", () => {
    expect(geminiError("g", response(403), rpc(403, "PERMISSION_DENIED", "denied")).reason).toMatchObject({ kind: "auth" })
    expect(geminiError("g", response(404), rpc(404, "NOT_FOUND", "models/x is not found")).reason).toMatchObject({ kind: "rejected" })
    expect(geminiError("g", response(500), rpc(500, "INTERNAL", "internal")).reason).toMatchObject({ kind: "server", status: 500 })
    expect(geminiError("g", response(503), rpc(503, "UNAVAILABLE", "overloaded")).reason).toMatchObject({ kind: "overloaded" })
  })

  it("reads errors wrapped in an array and bodies that are not JSON", () => {
    expect(geminiError("g", response(400), `[${rpc(400, "INVALID_ARGUMENT", "wrapped")}]`).reason.message).toBe("wrapped")
    expect(geminiError("g", response(502), "<html>Bad Gateway</html>").reason).toMatchObject({ kind: "server", status: 502 })
  })
})

describe("durationMs", () => {
  it.each([
    ["7s", 7000],
    ["0.250s", 250],
    ["59.999s", 59999],
    ["7", undefined],
    ["soon", undefined],
    [7, undefined]
  ])("reads %j as %j ms", (value, ms) => {
    expect(durationMs(value)).toBe(ms)
  })
})
