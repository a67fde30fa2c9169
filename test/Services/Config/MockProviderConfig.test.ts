import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { decodeConfig, loadConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"

const errorOf = (exit: Exit.Exit<unknown, { message: string }>) => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  return reason.error.message
}
const decode = (raw: unknown) => Effect.runSyncExit(decodeConfig("gw.yaml", raw, {}))
const mock = { id: "mock", kind: "mock" }

describe("kind: mock in gateway.yaml", () => {
  it("needs no base_url and no key, and serves chat and embedding models", () => {
    const exit = decode({
      providers: [mock],
      models: [
        { id: "mock-chat", kind: "chat", deployments: [{ provider: "mock", model: "mock-chat" }] },
        { id: "mock-embed", kind: "embedding", deployments: [{ provider: "mock", model: "mock-embed" }] }
      ]
    })
    if (!Exit.isSuccess(exit)) throw new Error(String(exit.cause))
    expect(exit.value.providers[0]).toMatchObject({ id: "mock", kind: "mock" })
  })

  it("refuses image, transcription and decision models on a mock provider", () => {
    for (const kind of ["image", "transcription", "decision"]) {
      const message = errorOf(decode({ providers: [mock], models: [{ id: "m", kind, deployments: [{ provider: "mock", model: "x" }] }] }))
      expect(message).toBe(`gw.yaml: models[0].deployments[0].provider: provider "mock" is of kind mock, which serves chat and embedding models only`)
    }
  })

  it("still requires base_url of every other kind, naming the line of the provider", () => {
    expect(errorOf(decode({ providers: [{ id: "openai", kind: "openai" }] }))).toBe(
      "gw.yaml: providers[0].base_url: missing: a provider of kind openai needs the address of its API"
    )
    const file = NodePath.join(mkdtempSync(NodePath.join(tmpdir(), "gw-mock-")), "gateway.yaml")
    writeFileSync(file, ["providers:", "  - id: mock", "    kind: mock", "  - id: groq", "    kind: openai-compatible", "    profile: groq"].join("\n"))
    expect(errorOf(Effect.runSyncExit(loadConfigFile(file, {})))).toMatch(
      /gateway\.yaml:4: providers\[1\]\.base_url \(provider 'groq'\): missing: a provider of kind openai-compatible needs the address of its API$/
    )
  })

  it("the shipped example serves mock-chat and mock-embed from a mock provider", () => {
    const exit = Effect.runSyncExit(loadConfigFile("gateway.example.yaml", {}))
    if (!Exit.isSuccess(exit)) throw new Error(String(exit.cause))
    const { providers, models } = exit.value.config
    const mockIds = new Set(providers.filter((p) => p.kind === "mock").map((p) => p.id))
    for (const id of ["mock-chat", "mock-embed"]) {
      const model = models.find((m) => m.id === id)
      expect(model?.deployments.every((d) => mockIds.has(d.provider))).toBe(true)
    }
  })
})
