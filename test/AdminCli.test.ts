import { spawn } from "node:child_process"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import { ApiKeyView, ProjectView, UserView } from "../src/Domain/ApiKey.ts"
import { CreatedKey, UsageReportBody } from "../src/Http/Admin/AdminSchemas.ts"
import { decodeExact, listOf } from "./support/AdminClient.ts"
import { makeTestStorage, type TestStorage } from "./support/TestDatabase.ts"
import { startGateway } from "./support/TestGateway.ts"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..")
const binDir = NodePath.join(root, "node_modules", ".bin")
/** The project's pinned Node, whatever runs vitest. */
const node = NodePath.join(binDir, "node")
const slow = 120_000

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const secretPattern = /sk-[A-Za-z0-9_-]{20,}/g

describe("admin CLI", () => {
  let storage: TestStorage

  // Asynchronous on purpose: an embedded gateway in this process serves the CLI's socket.
  const cli = (...args: ReadonlyArray<string>): Promise<Run> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${binDir}:${process.env["PATH"] ?? ""}`, DATA_DIR: storage.dataDir }
      delete env["DATABASE_URL"]
      delete env["GATEWAY_CONFIG"]
      if (storage.databaseUrl !== undefined) env["DATABASE_URL"] = Redacted.value(storage.databaseUrl)
      const child = spawn(node, [NodePath.join(root, "src", "AdminCli.ts"), ...args], { cwd: root, env })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stdout, stderr }))
    })

  const ok = async (...args: ReadonlyArray<string>): Promise<string> => {
    const run = await cli(...args)
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    return run.stdout
  }
  /** `--json` output, decoded exactly: the CLI prints the admin API's bodies. */
  const json = async <S extends Schema.Decoder<unknown>>(schema: S, ...args: ReadonlyArray<string>): Promise<S["Type"]> =>
    decodeExact(schema, JSON.parse(await ok(...args, "--json")))
  const KeysList = listOf(ApiKeyView)
  const CreatedWithProject = Schema.Struct({ project: ProjectView, user: UserView, ...CreatedKey.fields })

  /** One line on stderr, nothing on stdout, non-zero exit. */
  const expectFailure = (run: Run, code: number, text: string) => {
    expect(run.code).toBe(code)
    expect(run.stdout).toBe("")
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(run.stderr).toMatch(/^error: /)
    expect(run.stderr).toContain(text)
  }

  beforeAll(async () => {
    storage = await makeTestStorage()
  })
  afterAll(async () => {
    await storage?.cleanup()
  })

  it(
    "creates a project and a key, shows the secret once, lists without it and revokes",
    async () => {
      const project = await json(ProjectView, "projects", "create", "--name", "Acme")
      expect(project.name).toBe("Acme")
      expect(await ok("projects", "list")).toContain(project.id)

      const created = await ok("keys", "create", "--project", project.id, "--name", "ci", "--scopes", "models,chat", "--expires-in", "30d")
      const secrets = created.match(secretPattern) ?? []
      expect(secrets).toHaveLength(1)
      const secret = secrets[0]!
      expect(created).toContain("shown only once")
      expect(created).toContain("scopes:   models, chat")

      const listed = await ok("keys", "list", "--project", project.id)
      expect(listed).not.toContain(secret)
      expect(listed).toContain(`...${secret.slice(-4)}`)
      expect(listed).toContain("active")
      const [key] = (await json(KeysList, "keys", "list", "--project", project.id)).data
      expect(key).toMatchObject({ name: "ci", scopes: ["models", "chat"], hint: secret.slice(-4), revoked_at: null })
      expect((key?.expires_at ?? 0) - Date.now() / 1000).toBeGreaterThan(29 * 86_400)

      const revoked = await ok("keys", "revoke", key!.id)
      expect(revoked).toContain(key!.id)
      const [after] = (await json(KeysList, "keys", "list", "--project", project.id)).data
      expect(after?.revoked_at).not.toBeNull()
      expect(await ok("keys", "list", "--project", project.id)).toContain("revoked")
    },
    slow
  )

  it(
    "manages users and reports usage",
    async () => {
      const project = await json(ProjectView, "projects", "create", "--name", "People")
      const user = await json(UserView, "users", "create", "--project", project.id, "--name", "Alice", "--email", "alice@example.com")
      expect(user).toMatchObject({ project_id: project.id, email: "alice@example.com" })
      expect(await ok("users", "list", "--project", project.id)).toContain("alice@example.com")
      const { key } = await json(CreatedKey, "keys", "create", "--project", project.id, "--user", user.id)
      expect(key.user_id).toBe(user.id)

      const report = await json(UsageReportBody, "usage", "--project", project.id, "--from", "2026-01-01", "--to", "2026-02-01")
      expect(report).toMatchObject({
        project_id: project.id,
        from: Date.UTC(2026, 0, 1) / 1000,
        to: Date.UTC(2026, 1, 1) / 1000,
        totals: { requests: 0 }
      })
      expect(await ok("usage", "--project", project.id)).toContain("TOTAL")
    },
    slow
  )

  it(
    "prints one line on stderr and exits non-zero on mistakes",
    async () => {
      expectFailure(await cli("keys", "list", "--project", "proj_missing"), 1, "No such project: proj_missing")
      expectFailure(await cli("keys", "revoke", "key_missing"), 1, "No such API key: key_missing")
      // Command-line mistakes are caught before storage is opened, so these may run side by side.
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["keys", "create", "--project", "proj_x", "--scopes", "chat,everything"], "everything"],
        [["keys", "create", "--scopes", "chat"], "--project"],
        [["keys", "create", "--project", "p", "--expires-in", "1d", "--expires-at", "99999999999"], "--expires-at"],
        [["keys", "create", "--new-project", "n", "--expires-at", "2020-01-01"], "in the future"],
        [["keys", "create", "--new-project", "n", "--user", "user_x"], "--user"],
        [["projects", "create"], "--name"],
        [["usage", "--project", "p", "--from", "last tuesday"], "--from"]
      ]
      const runs = await Promise.all(cases.map(([args]) => cli(...args)))
      cases.forEach(([, text], i) => expectFailure(runs[i]!, 2, text))
      // None of those mistakes created anything.
      expect((await json(listOf(ProjectView), "projects", "list")).data.map((p) => p.name)).not.toContain("n")
    },
    slow
  )

  it(
    "issues keys that a gateway started afterwards on the same storage accepts",
    async () => {
      const kept = await json(CreatedWithProject, "keys", "create", "--new-project", "Restart", "--scopes", "models")
      expect(kept.project.name).toBe("Restart")
      // A new project comes with a user, so its first key also works on the files endpoints.
      expect(kept.user.project_id).toBe(kept.project.id)
      expect(kept.key.user_id).toBe(kept.user.id)
      expect(kept.secret).toMatch(secretPattern)
      const dropped = await json(CreatedKey, "keys", "create", "--project", kept.project.id)
      await ok("keys", "revoke", dropped.key.id)

      const gw = await startGateway({ storage })
      try {
        const models = (secret: string) => fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })
        expect((await models(kept.secret)).status).toBe(200)
        expect((await models(dropped.secret)).status).toBe(401)
      } finally {
        await gw.stop()
      }
    },
    slow
  )

  it(
    "works beside a running gateway, through its embedded database socket when there is one",
    async () => {
      const gw = await startGateway({ storage, config: { auth: { cache_ttl_seconds: 0 } } })
      try {
        const models = (secret: string) => fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })
        const created = await json(CreatedWithProject, "keys", "create", "--new-project", "Live", "--scopes", "models")
        expect((await models(created.secret)).status).toBe(200)
        await ok("keys", "revoke", created.key.id)
        expect((await models(created.secret)).status).toBe(401)
      } finally {
        await gw.stop()
      }
    },
    slow
  )
})
