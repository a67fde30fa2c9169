import { writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { failedAuthThrottle } from "../../../src/Http/Admin/FailedAuthThrottle.ts"
import { startGatewayProcess } from "../../support/GatewayProcess.ts"
import { makeTestStorage } from "../../support/TestDatabase.ts"
import { startGateway } from "../../support/TestGateway.ts"
import { useGateway } from "../../support/UseGateway.ts"

const token = "admin-hardening-token-0123456789abcdef"
const json = { "content-type": "application/json" }

/** A browser of its own: the session cookie it got at sign-in, and its CSRF token. */
const signIn = async (url: string) => {
  const res = await fetch(`${url}/console/session`, { method: "POST", headers: json, body: JSON.stringify({ token }) })
  expect(res.status).toBe(200)
  const cookie = (res.headers.get("set-cookie") ?? "").split(";", 1)[0]!
  const { csrf_token } = (await res.json()) as { csrf_token: string }
  return {
    get: (path: string) => fetch(`${url}${path}`, { headers: { cookie } }),
    remove: (path: string) => fetch(`${url}${path}`, { method: "DELETE", headers: { cookie, "x-csrf-token": csrf_token } })
  }
}

describe("failed admin attempts are throttled per client", () => {
  it("counts failures in a sliding minute; past the limit the client is refused until the oldest ages out", () => {
    const throttle = failedAuthThrottle(3)
    for (const at of [0, 1_000, 2_000]) {
      expect(throttle.refusal("10.0.0.1", at)).toBeUndefined()
      throttle.failed("10.0.0.1", at)
    }
    const refused = throttle.refusal("10.0.0.1", 30_000)
    expect(refused?.reason).toMatchObject({ _tag: "RateLimited", code: "too_many_failed_attempts", retryAfterMs: 30_000 })
    expect(throttle.refusal("10.0.0.2", 30_000)).toBeUndefined()
    expect(throttle.refusal("10.0.0.1", 60_001)).toBeUndefined()
  })

  const gw = useGateway({ adminToken: token, key: false, config: { auth: { failed_admin_attempts_per_minute: 3 } } })

  it("on /admin and the console sign-in: 429 with Retry-After, even for the right token; a signed-in console keeps working", async () => {
    const browser = await signIn(gw.url)
    const wrong = () => fetch(`${gw.url}/admin/projects`, { headers: { authorization: "Bearer not-the-admin-token" } })
    for (let i = 0; i < 2; i++) expect((await wrong()).status).toBe(401)
    const signInWrong = await fetch(`${gw.url}/console/session`, { method: "POST", headers: json, body: JSON.stringify({ token: "nope" }) })
    expect(signInWrong.status).toBe(401)
    const throttled = await fetch(`${gw.url}/admin/projects`, { headers: { authorization: `Bearer ${token}` } })
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(((await throttled.json()) as { error: { code: string } }).error.code).toBe("too_many_failed_attempts")
    const signInThrottled = await fetch(`${gw.url}/console/session`, { method: "POST", headers: json, body: JSON.stringify({ token }) })
    expect(signInThrottled.status).toBe(429)
    // A session cookie cannot be guessed: the failures of others at this address do not lock it out.
    expect((await browser.get("/admin/projects")).status).toBe(200)
  })
})

describe("console sessions end on the server", () => {
  const gw = useGateway({ adminToken: token, key: false })

  it("signing out ends that session only; 'sign out everywhere' ends every other browser's too", async () => {
    const first = await signIn(gw.url)
    const second = await signIn(gw.url)
    const third = await signIn(gw.url)
    expect((await first.get("/admin/projects")).status).toBe(200)

    expect((await first.remove("/console/session")).status).toBe(204)
    // The cookie itself is still validly signed and unexpired: only the server knows it ended.
    const ended = await first.get("/admin/projects")
    expect(ended.status).toBe(401)
    expect(((await ended.json()) as { error: { code: string } }).error.code).toBe("invalid_console_session")
    expect((await second.get("/admin/projects")).status).toBe(200)

    const everywhere = await second.remove("/console/sessions")
    expect(everywhere.status).toBe(200)
    expect(await everywhere.json()).toEqual({ object: "console_sessions.ended", ended: 2 })
    expect((await second.get("/console/session")).status).toBe(401)
    expect((await third.get("/admin/projects")).status).toBe(401)
    // The admin token still works, and can end every session itself.
    const withToken = await fetch(`${gw.url}/console/sessions`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })
    expect(await withToken.json()).toEqual({ object: "console_sessions.ended", ended: 0 })
  })

  // Embedded storage belongs to one gateway process: two instances need the Postgres run.
  it.runIf(Boolean(process.env["DATABASE_URL"]))("reaches every instance sharing the database (Postgres run only)", async () => {
    const storage = await makeTestStorage()
    const a = await startGateway({ storage, adminToken: token })
    const b = await startGateway({ storage, adminToken: token })
    try {
      const browser = await signIn(a.url)
      const other = await signIn(b.url)
      expect((await other.get("/admin/projects")).status).toBe(200)
      expect((await browser.remove("/console/sessions")).status).toBe(200)
      expect((await other.get("/admin/projects")).status).toBe(401)
    } finally {
      await b.stop()
      await a.stop()
      await storage.cleanup()
    }
  })
})

describe("the admin token's length", () => {
  it("a gateway refuses to start with a short GATEWAY_ADMIN_TOKEN, saying why and how to make one", async () => {
    const storage = await makeTestStorage()
    const configFile = NodePath.join(storage.dataDir, "gateway.yaml")
    writeFileSync(configFile, "models: []\n")
    try {
      const failure = await startGatewayProcess({ storage, configFile, env: { GATEWAY_ADMIN_TOKEN: "short-admin-token" } }).then(
        () => "started",
        (error: Error) => error.message
      )
      expect(failure).toMatch(/gateway: GATEWAY_ADMIN_TOKEN: is 17 characters long; it must be at least 32.*openssl rand -hex 32/)
      // Never the token itself in the message.
      expect(failure).not.toContain("short-admin-token")
      // Settings made in code are held to the same rule.
      await expect(startGateway({ storage, adminToken: "x".repeat(31) })).rejects.toThrow(/at least 32/)
    } finally {
      await storage.cleanup()
    }
  }, 60_000)
})
