import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeConfig } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { keyHint, keylessProviders, keyVariables } from "../../../src/Services/Config/ProviderKeys.ts"

const raw = {
  providers: [
    { id: "openai", kind: "openai", base_url: "https://api.openai.com/v1", api_key: "${OPENAI_KEY_FOR_TEST:-}" },
    { id: "fixed", kind: "openai", base_url: "https://api.openai.com/v1", api_key: "sk-literal-key" },
    { id: "local", kind: "openai-compatible", profile: "ollama", base_url: "http://127.0.0.1:11434/v1" },
    { id: "blank", kind: "anthropic", base_url: "https://api.anthropic.com/v1", api_key: "" }
  ]
}

describe("provider keys", () => {
  it("reads which variable each key comes from, before interpolation", () => {
    expect(keyVariables(raw)).toEqual({ openai: "OPENAI_KEY_FOR_TEST" })
    expect(keyVariables(null)).toEqual({})
    expect(keyVariables({ providers: "x" })).toEqual({})
  })

  it.effect("a key written but empty is missing; no key written at all (a local server) is not", () =>
    Effect.gen(function* () {
      const config = yield* decodeConfig("gw.yaml", raw, {})
      expect([...keylessProviders(config)].sort()).toEqual(["blank", "openai"])
      const withKey = yield* decodeConfig("gw.yaml", raw, { OPENAI_KEY_FOR_TEST: "sk-set" })
      expect([...keylessProviders(withKey)]).toEqual(["blank"])
    }))

  it("hints name the variable, else the config field", () => {
    expect(keyHint("openai", { openai: "OPENAI_API_KEY" })).toBe("set the environment variable OPENAI_API_KEY")
    expect(keyHint("blank", {}, 3)).toBe("set providers[3].api_key of 'blank' in the configuration")
  })
})
