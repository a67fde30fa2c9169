import { describe, expect, it } from "@effect/vitest"
import { type AccessRecord, jsonLine, textLine } from "../../../src/Services/AccessLog/AccessLogLine.ts"
import { accessLogMode } from "../../../src/Services/AccessLog/AccessLogSettings.ts"
import { AccessLogWriter } from "../../../src/Services/AccessLog/AccessLogWriter.ts"

const defaults = { enabled: true, format: "auto", level: "info" } as const

const record: AccessRecord = {
  time: Date.UTC(2026, 10, 25, 21, 4, 5, 123),
  level: "INFO",
  requestId: "req_abc",
  method: "POST",
  route: "/v1/chat/completions",
  status: 200,
  model: "gpt-test",
  provider: "openai",
  attempts: 2,
  latencyMs: 12.345,
  ttftMs: 4,
  promptTokens: 7,
  completionTokens: 2,
  keyId: "key_1",
  projectId: "proj_1",
  errorCode: undefined,
  client: "127.0.0.1"
}

describe("access log", () => {
  it("mode: ACCESS_LOG wins, auto follows the terminal, LOG_LEVEL filters", () => {
    expect(accessLogMode(defaults, {}, false)).toEqual({ enabled: true, format: "json", level: "INFO", errorsOnly: false })
    expect(accessLogMode(defaults, {}, true)).toMatchObject({ format: "text" })
    expect(accessLogMode(defaults, { ACCESS_LOG: "off" }, false)).toEqual({ enabled: false })
    expect(accessLogMode({ ...defaults, enabled: false }, {}, false)).toEqual({ enabled: false })
    expect(accessLogMode({ ...defaults, enabled: false }, { ACCESS_LOG: "text" }, false)).toMatchObject({ enabled: true, format: "text" })
    expect(accessLogMode(defaults, { LOG_LEVEL: "warn" }, false)).toMatchObject({ enabled: true, errorsOnly: true })
    expect(accessLogMode({ ...defaults, level: "warn" }, { LOG_LEVEL: "warn" }, false)).toMatchObject({ errorsOnly: false, level: "WARN" })
    expect(accessLogMode(defaults, { LOG_LEVEL: "none" }, false)).toEqual({ enabled: false })
  })

  it("lines: JSON with every field, and the human form", () => {
    expect(JSON.parse(jsonLine(record))).toEqual({
      log: "access",
      level: "INFO",
      time: "2026-11-25T21:04:05.123Z",
      request_id: "req_abc",
      method: "POST",
      route: "/v1/chat/completions",
      status: 200,
      latency_ms: 12.35,
      model: "gpt-test",
      provider: "openai",
      attempts: 2,
      ttft_ms: 4,
      prompt_tokens: 7,
      completion_tokens: 2,
      key_id: "key_1",
      project_id: "proj_1",
      client: "127.0.0.1"
    })
    // The fields every log line shares come first, in the same order as the application's lines.
    expect(Object.keys(JSON.parse(jsonLine(record))).slice(0, 6)).toEqual(["time", "level", "log", "request_id", "project_id", "key_id"])
    expect(textLine(record)).toBe("21:04:05.123 POST /v1/chat/completions 200 12.35ms gpt-test via openai attempts=2 ttft=4ms tokens=7/2 key=key_1 project=proj_1 from=127.0.0.1 req_abc\n")
    const refused = { ...record, status: 429, errorCode: "rate_limit_exceeded" }
    expect(JSON.parse(jsonLine(refused))).toMatchObject({ status: 429, code: "rate_limit_exceeded" })
    expect(textLine(refused)).toContain(" code=rate_limit_exceeded key=key_1 ")
  })

  it("text: a model name (or any client-supplied field) cannot forge a line or send escape sequences", () => {
    const hostile = { ...record, model: "gpt\n21:00:00.000 POST /admin 200 1ms\u001b[2J", route: "/v1/x\u0085y z" }
    const line = textLine(hostile)
    expect(line.split("\n")).toHaveLength(2)
    expect(line).not.toContain("\u001b")
    expect(line).toContain("gpt\\x0a21:00:00.000\\x20POST\\x20/admin\\x20200\\x201ms\\x1b[2J via openai")
    expect(line).toContain(" /v1/x\\x85y\\x20z ")
    // A backslash is doubled, so an escape in the log always means the byte it names.
    expect(textLine({ ...record, model: "a\\x0a" })).toContain(" a\\\\x0a via ")
  })

  it("writer: one write per turn for many lines", async () => {
    const writes: Array<string> = []
    const writer = new AccessLogWriter((text) => writes.push(text))
    writer.write("a\n")
    writer.write("b\n")
    expect(writes).toEqual([])
    await new Promise((r) => setImmediate(r))
    expect(writes).toEqual(["a\nb\n"])
    writer.write("x".repeat(70_000))
    expect(writes).toHaveLength(2)
  })
})
