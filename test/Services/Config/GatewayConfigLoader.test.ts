import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { decodeConfig, interpolate, loadConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"

const errorOf = (exit: Exit.Exit<unknown, { message: string }>) => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  return reason.error.message
}
const decode = (raw: unknown, env: Record<string, string> = {}) => Effect.runSyncExit(decodeConfig("gw.yaml", raw, env))
const provider = { id: "openai", kind: "openai", base_url: "https://api.openai.com/v1", api_key: "${KEY}" }
const model = { id: "m", kind: "chat", deployments: [{ provider: "openai", model: "gpt" }] }

describe("gateway.yaml", () => {
  it("an error read from a file names its line, the entry's id and the nearest valid key or value", () => {
    const dir = mkdtempSync(NodePath.join(tmpdir(), "gw-hints-"))
    const write = (lines: ReadonlyArray<string>) => {
      const file = NodePath.join(dir, "gateway.yaml")
      writeFileSync(file, lines.join("\n"))
      return errorOf(Effect.runSyncExit(loadConfigFile(file, {})))
    }
    const typo = write([
      "providers:",
      "  - id: openai",
      "    kind: openai",
      "    base_url: https://api.openai.com/v1",
      "  - id: local",
      "    kind: openai-compatible",
      "    base_ulr: http://127.0.0.1:8000/v1"
    ])
    expect(typo).toMatch(/gateway\.yaml:7: providers\[1\]\.base_ulr \(provider 'local'\): unknown key; did you mean 'base_url'\?$/)
    const profile = write(["providers:", "  - id: vllm", "    kind: vllm", "    base_url: http://127.0.0.1:8000/v1"])
    expect(profile).toMatch(/gateway\.yaml:3: providers\[0\]\.kind \(provider 'vllm'\): expected .*; "vllm" is a profile of openai-compatible: write kind: openai-compatible and profile: vllm$/)
    const unknown = write([
      "providers:",
      "  - { id: openai, kind: openai, base_url: \"https://api.openai.com/v1\" }",
      "  - { id: groq, kind: openai-compatible, base_url: \"https://api.groq.com/openai/v1\" }",
      "models:",
      "  - id: chat",
      "    kind: chat",
      "    deployments: [{ provider: opneai, model: gpt-4.1-mini }]"
    ])
    expect(unknown).toMatch(/gateway\.yaml:7: models\[0\]\.deployments\[0\]\.provider \(model 'chat'\): unknown provider "opneai" \(known: openai, groq\)$/)
  })

  it("interpolates ${VAR} and ${VAR:-default} in values only", () => {
    expect(interpolate({ a: "x-${A}-y", b: ["${B:-dflt}"], c: "$${A}" }, { A: "1" })).toEqual({ value: { a: "x-1-y", b: ["dflt"], c: "${A}" } })
    expect(interpolate({ p: [{ k: "${NOPE}" }] }, {})).toEqual({ missing: "NOPE", path: ["p", 0, "k"] })
  })

  it("keeps provider keys redacted", () => {
    const exit = decode({ providers: [provider] }, { KEY: "sk-live" })
    if (!Exit.isSuccess(exit)) throw new Error("decode failed")
    const key = exit.value.providers[0]!.api_key!
    expect(String(key)).toBe("<redacted>")
    expect(JSON.stringify(exit.value)).not.toContain("sk-live")
    expect(Redacted.value(key)).toBe("sk-live")
  })

  it("names the file, the field path and the problem", () => {
    expect(errorOf(decode({ providers: [provider] }))).toBe(
      "gw.yaml: providers[0].api_key: environment variable KEY is not set (write ${KEY:-} to allow it to be empty)"
    )
    expect(errorOf(decode({ providers: [{ ...provider, kind: "azure" }] }, { KEY: "k" }))).toMatch(/^gw\.yaml: providers\[0\]\.kind: expected "openai" \| /i)
    expect(errorOf(decode({ providers: [provider], models: [{ ...model, deployments: [{ provider: "nope", model: "x" }] }] }, { KEY: "k" }))).toBe(
      'gw.yaml: models[0].deployments[0].provider: unknown provider "nope" (known: openai)'
    )
    expect(errorOf(decode({ providers: [provider], models: [{ ...model, fallbacks: ["ghost"] }] }, { KEY: "k" }))).toBe(
      'gw.yaml: models[0].fallbacks[0]: unknown model "ghost"'
    )
    expect(errorOf(decode({ providers: [provider], modles: [] }, { KEY: "k" }))).toBe("gw.yaml: modles: unknown key; did you mean 'models'?")
    expect(errorOf(decode({ providers: [provider, provider] }, { KEY: "k" }))).toBe('gw.yaml: providers[1].id: duplicate provider id "openai"')
  })

  it("refuses an embedding model deployed on Anthropic, which has no embeddings API", () => {
    const anthropic = { id: "claude", kind: "anthropic", base_url: "https://api.anthropic.com/v1" }
    const embedding = { id: "emb", kind: "embedding", deployments: [{ provider: "openai", model: "e" }, { provider: "claude", model: "e" }] }
    expect(errorOf(decode({ providers: [provider, anthropic], models: [embedding] }, { KEY: "k" }))).toBe(
      'gw.yaml: models[0].deployments[1].provider: provider "claude" is of kind anthropic, which has no embeddings API'
    )
  })

  it("reports YAML syntax errors with a line", () => {
    const dir = mkdtempSync(NodePath.join(tmpdir(), "gw-config-"))
    const file = NodePath.join(dir, "bad.yaml")
    writeFileSync(file, "providers:\n  - id: x\n   kind: [oops\n")
    expect(errorOf(Effect.runSyncExit(loadConfigFile(file, {})))).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line \\d+:\\d+: invalid YAML`))
  })

  it("stops start-up with one line on stderr", () => {
    const dir = mkdtempSync(NodePath.join(tmpdir(), "gw-config-"))
    const file = NodePath.join(dir, "gateway.yaml")
    writeFileSync(file, "providers:\n  - id: openai\n    kind: openai\n    base_url: not-a-url\n")
    const result = spawnSync(process.execPath, ["src/main.ts"], {
      env: { ...process.env, GATEWAY_CONFIG: file, DATA_DIR: NodePath.join(dir, "data"), PORT: "0" },
      encoding: "utf8",
      timeout: 20_000
    })
    expect(result.status).toBe(1)
    const lines = result.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe(`gateway: ${file}:4: providers[0].base_url (provider 'openai'): expected an http(s) URL`)
  })

  it("the shipped example decodes without any environment variable", () => {
    const exit = Effect.runSyncExit(loadConfigFile("gateway.example.yaml", {}))
    expect(Exit.isSuccess(exit)).toBe(true)
  })
})
