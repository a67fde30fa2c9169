import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { redactSecrets, registeredSecrets, registerSecret } from "../../src/Domain/SecretRedaction.ts"

describe("redactSecrets", () => {
  it("removes key shapes whoever configured them", () => {
    expect(redactSecrets("Incorrect API key provided: sk-proj-abcDEF123456_xyz. You can find your API key at https://platform.openai.com/account/api-keys."))
      .toBe("Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.")
    expect(redactSecrets("masked sk-proj-********************************************abcd")).toBe("masked [redacted]")
    expect(redactSecrets("x-api-key sk-ant-api03-AbC_dEf-0123456789")).toBe("x-api-key [redacted]")
    expect(redactSecrets("key AIzaSyA-0123456789abcdefghijklmnopqrstu is invalid")).toBe("key [redacted] is invalid")
    expect(redactSecrets("groq gsk_0123456789abcdef")).toBe("groq [redacted]")
    expect(redactSecrets("Authorization: Bearer abc.def-ghi_jkl")).toBe("Authorization: Bearer [redacted]")
    expect(redactSecrets("GET /v1/models?key=secret123&alt=sse")).toBe("GET /v1/models?key=[redacted]&alt=sse")
  })

  it("leaves ordinary text alone, including words that merely contain sk-", () => {
    const text = "The model 'gpt-4o' is overloaded; ask-me-later and task-runner are fine (HTTP 529)."
    expect(redactSecrets(text)).toBe(text)
  })

  it("removes configured keys of any shape, longest first; keys under 8 characters are not matched literally", () => {
    registerSecret("plain-secret-value-1")
    registerSecret("plain-secret-value-1-longer")
    registerSecret("short")
    expect(registeredSecrets()).toEqual(expect.arrayContaining(["plain-secret-value-1", "plain-secret-value-1-longer"]))
    expect(registeredSecrets()).not.toContain("short")
    expect(redactSecrets("a plain-secret-value-1-longer b plain-secret-value-1 c short")).toBe("a [redacted] b [redacted] c short")
  })

  it.prop("keeps JSON valid and is idempotent", { text: Schema.String }, ({ text }) => {
    const json = JSON.stringify({ message: `${text} sk-proj-${"a".repeat(20)} Bearer ${text.replace(/\s/g, "")}x` })
    const once = redactSecrets(json)
    expect(() => JSON.parse(once)).not.toThrow()
    expect(redactSecrets(once)).toBe(once)
    expect(once).not.toContain(`sk-proj-${"a".repeat(20)}`)
  })
})
