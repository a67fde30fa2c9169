import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { ApiKeyView, ProjectView, UserView } from "../../src/Domain/ApiKey.ts"
import { CreatedKey } from "../../src/Http/Admin/AdminSchemas.ts"
import { Deleted, RotatedKey } from "../../src/Http/Admin/OperationsSchemas.ts"
import { decodeExact, listOf } from "../support/AdminClient.ts"
import { runAdminCli } from "../support/AdminCliRun.ts"
import { makeTestStorage, type TestStorage } from "../support/TestDatabase.ts"

const slow = 180_000

describe("admin CLI: changing scopes, rotating keys, deleting users and projects", () => {
  let storage: TestStorage
  beforeAll(async () => {
    storage = await makeTestStorage()
  })
  afterAll(async () => {
    await storage?.cleanup()
  })
  const json = async (...args: ReadonlyArray<string>): Promise<unknown> => {
    const env: NodeJS.ProcessEnv = { DATA_DIR: storage.dataDir, ...(storage.databaseUrl === undefined ? {} : { DATABASE_URL: Redacted.value(storage.databaseUrl) }) }
    const run = await runAdminCli([...args, "--json"], env)
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    return JSON.parse(run.stdout)
  }

  it("does what the admin API does, and prints the admin API's bodies", async () => {
    const project = decodeExact(ProjectView, await json("projects", "create", "--name", "ops"))
    const user = decodeExact(UserView, await json("users", "create", "--project", project.id, "--name", "Bob"))
    const created = decodeExact(CreatedKey, await json("keys", "create", "--project", project.id, "--user", user.id, "--scopes", "chat"))
    const changed = decodeExact(ApiKeyView, await json("keys", "scopes", created.key.id, "--scopes", "chat,embeddings"))
    expect(changed.scopes).toEqual(["chat", "embeddings"])
    const rotated = decodeExact(RotatedKey, await json("keys", "rotate", created.key.id))
    expect(rotated.key).toMatchObject({ id: created.key.id, hint: rotated.secret.slice(-4) })
    expect(rotated.secret).not.toBe(created.secret)
    expect(decodeExact(Deleted, await json("users", "delete", user.id))).toEqual({ id: user.id, object: "user", deleted: true, revoked_keys: 1 })
    expect(decodeExact(Deleted, await json("projects", "delete", project.id))).toEqual({ id: project.id, object: "project", deleted: true, revoked_keys: 0 })
    expect(decodeExact(listOf(ProjectView), await json("projects", "list")).data).toEqual([])
  }, slow)
})
