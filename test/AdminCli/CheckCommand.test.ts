import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { runAdminCli } from "../support/AdminCliRun.ts"

const dir = mkdtempSync(NodePath.join(tmpdir(), "gw-check-"))
const file = (name: string, lines: ReadonlyArray<string>) => {
  const path = NodePath.join(dir, name)
  writeFileSync(path, lines.join("\n"))
  return path
}

const good = file("good.yaml", [
  "providers:",
  "  - { id: openai, kind: openai, base_url: https://api.openai.com/v1, api_key: sk-configured-key }",
  "models:",
  "  - id: gpt-test",
  "    kind: chat",
  "    deployments: [{ provider: openai, model: gpt-4.1-mini }]",
  "    capabilities: { tools: true }",
  "    pricing: { input_per_mtok: 1, output_per_mtok: 2 }"
])
const keyless = file("keyless.yaml", [
  "providers:",
  "  - { id: openai, kind: openai, base_url: https://api.openai.com/v1, api_key: '${GW_CHECK_TEST_UNSET:-}' }",
  "models:",
  "  - { id: bare, kind: chat, deployments: [{ provider: openai, model: gpt-4.1-mini }] }"
])
const unknownKey = file("unknown.yaml", ["server: { body_limit_mb: 10, colour: blue }"])
const badProvider = file("bad-provider.yaml", ["models:", "  - { id: m, kind: chat, deployments: [{ provider: nope, model: x }] }"])

/** Embedded storage in a directory of its own; no Redis unless a test names one. */
const check = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) =>
  runAdminCli(["check", ...args], { DATA_DIR: NodePath.join(dir, "data"), DATABASE_URL: "", REDIS_URL: "", GATEWAY_ADMIN_TOKEN: "", ...env })

describe("admin check", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("a good configuration: what would be served, exit 0", async () => {
    const run = await check(["--config", good])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`config: ${good}`)
    expect(run.stdout).toContain("openai (openai) https://api.openai.com/v1; key: set")
    expect(run.stdout).toContain("gpt-test (chat) via openai/gpt-4.1-mini")
    expect(run.stdout).toContain("database: embedded PGlite under")
    expect(run.stdout).toContain("redis: not configured")
    expect(run.stdout).toContain("admin API: disabled (set GATEWAY_ADMIN_TOKEN to enable)")
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("ok")
    expect(run.stdout).not.toContain("sk-configured-key")
  }, 60_000)

  it("a provider without a key and a model without prices or capabilities: warnings; --strict fails on them", async () => {
    const run = await check(["--config", keyless])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("warning: providers[0] 'openai' has no API key: its models answer 503 (set the environment variable GW_CHECK_TEST_UNSET)")
    expect(run.stdout).toContain("warning: models[0] 'bare' has no pricing")
    expect(run.stdout).toContain("warning: models[0] 'bare' states no capabilities")
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("ok with 3 warning(s)")
    const strict = await check(["--config", keyless, "--strict"])
    expect(strict.code).toBe(1)
    expect(strict.stdout).toContain("not ok: 0 error(s), 3 warning(s)")
  }, 60_000)

  it("schema errors, unknown keys and unknown providers: exit 1 naming the field", async () => {
    const unknown = await check(["--config", unknownKey])
    expect(unknown.code).toBe(1)
    // The error names the file, its line and the key.
    expect(unknown.stdout).toContain(`error: ${unknownKey}:1: server.colour: unknown key`)
    const provider = await check(["--config", badProvider])
    expect(provider.code).toBe(1)
    // The line, the entry's id, and the providers it could have meant.
    expect(provider.stdout).toContain(`error: ${badProvider}:2: models[0].deployments[0].provider (model 'm'): unknown provider "nope" (known: none)`)
    const missing = await check(["--config", NodePath.join(dir, "absent.yaml")])
    expect(missing.code).toBe(1)
    expect(missing.stdout).toContain("cannot be read (ENOENT)")
  }, 60_000)

  it("an unreachable database or Redis is an error", async () => {
    const run = await check(["--config", good], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", REDIS_URL: "redis://127.0.0.1:1" })
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/error: database: postgres:\/\/127\.0\.0\.1:1\/none is unreachable/)
    expect(run.stdout).toMatch(/error: redis: redis:\/\/127\.0\.0\.1:1 is unreachable/)
  }, 60_000)

  it("reachable Postgres and Redis are reported as answering", async () => {
    // The machine's local services (see the developers' guide); the database is only asked SELECT 1.
    const run = await check(["--config", good], { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/postgres", REDIS_URL: "redis://127.0.0.1:6379" })
    expect(run.stdout).toContain("database: postgres://127.0.0.1:5432/postgres answers")
    expect(run.stdout).toContain("redis: redis://127.0.0.1:6379 answers")
    expect(run.code).toBe(0)
  }, 60_000)
})
