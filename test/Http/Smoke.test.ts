import { describe, expect, it } from "@effect/vitest"
import { useGateway } from "../support/UseGateway.ts"

describe("smoke", () => {
  const gw = useGateway({ key: false })
  it("lists models with a key", async () => {
    const key = await gw.createKey()
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key.secret}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ object: "list", data: [] })
  })
})
