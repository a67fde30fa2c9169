import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { makeTestStorage, type TestStorage } from "../support/TestDatabase.ts"
import { startGateway, type TestGateway } from "../support/TestGateway.ts"

describe("smoke", () => {
  let storage: TestStorage
  let gw: TestGateway
  beforeAll(async () => {
    storage = await makeTestStorage()
    gw = await startGateway({ storage })
  })
  afterAll(async () => {
    await gw?.stop()
    await storage?.cleanup()
  })
  it("lists models with a key", async () => {
    const key = await gw.createKey()
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key.secret}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ object: "list", data: [] })
  })
})
