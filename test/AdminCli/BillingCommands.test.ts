import { spawn } from "node:child_process"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { BillingStatusView, CreditLedgerView } from "../../src/Domain/BillingView.ts"
import { decodeExact } from "../support/AdminClient.ts"
import { makeTestStorage, type TestStorage } from "../support/TestDatabase.ts"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")
const binDir = NodePath.join(root, "node_modules", ".bin")
const slow = 120_000

describe("admin CLI: billing", () => {
  let storage: TestStorage
  beforeAll(async () => {
    storage = await makeTestStorage()
  })
  afterAll(async () => {
    await storage?.cleanup()
  })

  const cli = (...args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${binDir}:${process.env["PATH"] ?? ""}`, DATA_DIR: storage.dataDir }
      delete env["DATABASE_URL"]
      delete env["GATEWAY_CONFIG"]
      if (storage.databaseUrl !== undefined) env["DATABASE_URL"] = Redacted.value(storage.databaseUrl)
      const child = spawn(NodePath.join(binDir, "node"), [NodePath.join(root, "src", "AdminCli.ts"), ...args], { cwd: root, env })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stdout, stderr }))
    })
  const ok = async (...args: ReadonlyArray<string>) => {
    const run = await cli(...args)
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    return run.stdout
  }

  it("grants credit, sets and clears limits and shows balance, spend and reservations", async () => {
    const project = JSON.parse(await ok("projects", "create", "--name", "billed", "--json")) as { id: string }
    const granted = decodeExact(BillingStatusView, JSON.parse(await ok("billing", "grant", "--project", project.id, "--usd", "12.5", "--note", "prepaid", "--json")))
    expect(granted.balance_usd).toBe(12.5)
    await ok("billing", "limit", "--project", project.id, "--period", "month", "--usd", "5")
    await ok("billing", "rate-limit", "--project", project.id, "--rpm", "60", "--tpm", "10000")
    const text = await ok("billing", "show", "--project", project.id)
    expect(text).toContain("balance   $12.500000")
    expect(text).toContain("limit     project per month: $5.000000")
    expect(text).toContain("rate      project: rpm 60, tpm 10000")
    const ledger = decodeExact(CreditLedgerView, JSON.parse(await ok("billing", "ledger", "--project", project.id, "--json")))
    expect(ledger.data.map((e) => [e.kind, e.amount_nano_usd, e.note])).toEqual([["grant", "12500000000", "prepaid"]])
    expect(ledger.rebuilt_balance_nano_usd).toBe("12500000000")
    const cleared = decodeExact(BillingStatusView, JSON.parse(await ok("billing", "limit", "--project", project.id, "--period", "month", "--clear", "--json")))
    expect(cleared.spend_limits).toEqual([])
    const wrong = await cli("billing", "limit", "--project", project.id, "--period", "month")
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain("--usd")
  }, slow)
})
