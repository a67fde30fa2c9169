import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { runAdminCli } from "../../support/AdminCliRun.ts"
import { makeTestStorage } from "../../support/TestDatabase.ts"
import { startGateway } from "../../support/TestGateway.ts"

const models = async (url: string, secret: string) => {
  const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })
  await res.arrayBuffer()
  return res.status
}

/** Polls until `/v1/models` refuses `secret`; the milliseconds it took, or undefined after `limitMs`. */
const refusedWithin = async (url: string, secret: string, limitMs: number): Promise<number | undefined> => {
  const started = Date.now()
  while (Date.now() - started < limitMs) {
    if ((await models(url, secret)) === 401) return Date.now() - started
    await new Promise((r) => setTimeout(r, 20))
  }
  return undefined
}

describe("key revocation", () => {
  it("reaches every instance on the same database within 1 s, through the CLI or the admin API", async () => {
    const storage = await makeTestStorage()
    // Embedded storage belongs to one gateway process: a second instance cannot open it, so there
    // the case is one instance and a revocation from the CLI, through the gateway's socket.
    const second = storage.mode === "postgres"
    // A long TTL: without the notice a revoked key would keep working for a minute.
    const config = { auth: { cache_ttl_seconds: 60 } }
    const a = await startGateway({ storage, config, adminToken: "admin-token-for-revocation-test-0123456789" })
    const b = second ? await startGateway({ storage, config }) : a
    try {
      const viaCli = await a.createKey()
      const viaApi = await a.createKey()
      for (const key of [viaCli, viaApi]) {
        expect(await models(a.url, key.secret)).toBe(200)
        expect(await models(b.url, key.secret)).toBe(200)
      }
      const revoked = await runAdminCli(["keys", "revoke", viaCli.keyId], {
        DATA_DIR: storage.dataDir,
        ...(storage.databaseUrl === undefined ? {} : { DATABASE_URL: Redacted.value(storage.databaseUrl) })
      })
      expect(revoked.stderr).toBe("")
      expect(await refusedWithin(b.url, viaCli.secret, 1000)).toBeDefined()
      expect(await refusedWithin(a.url, viaCli.secret, 1000)).toBeDefined()

      const res = await fetch(`${a.url}/admin/keys/${viaApi.keyId}/revoke`, {
        method: "POST",
        headers: { authorization: "Bearer admin-token-for-revocation-test-0123456789" }
      })
      expect(res.status).toBe(200)
      expect(await refusedWithin(b.url, viaApi.secret, 1000)).toBeDefined()
      // Other keys are untouched.
      const other = await a.createKey()
      expect(await models(b.url, other.secret)).toBe(200)
    } finally {
      if (second) await b.stop()
      await a.stop()
      await storage.cleanup()
    }
  }, 120_000)
})
