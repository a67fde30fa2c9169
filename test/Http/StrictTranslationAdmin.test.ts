import { describe, expect, it } from "@effect/vitest"
import { anthropicMessage } from "../support/AnthropicFixtures.ts"
import { adminCall } from "../support/AdminClient.ts"
import { useGateway } from "../support/UseGateway.ts"

/** Strict translation switched on and off for an existing key and project through the admin API. */
const token = "admin-token-strict-translation-0123456789"

describe("strict translation through the admin API", () => {
  const gw = useGateway({
    config: ({ upstream }) => ({
      providers: [{ id: "anthropic", kind: "anthropic", base_url: `${upstream.url}/v1`, api_key: "sk-ant-up" }],
      models: [{ id: "claude", kind: "chat", deployments: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] }]
    }),
    adminToken: token
  })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)
  // `seed` has no Anthropic equivalent: dropped, or refused in strict mode.
  const ask = (secret: string) => gw.postJson("/v1/chat/completions", { model: "claude", seed: 3, messages: [{ role: "user", content: "hi" }] }, secret)

  it("a key: on refuses the dropped field, off lets it through again", async () => {
    upstream.always({ kind: "json", status: 200, body: anthropicMessage() })
    const key = await gw.createKey()
    expect((await ask(key.secret)).status).toBe(200)
    const on = await admin("POST", `/admin/keys/${key.keyId}/strict-translation`, { body: { strict_translation: true } })
    expect(on.status).toBe(200)
    expect(on.body).toMatchObject({ id: key.keyId, strict_translation: true })
    const refused = await ask(key.secret)
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe("seed")
    await admin("POST", `/admin/keys/${key.keyId}/strict-translation`, { body: { strict_translation: false } })
    expect((await ask(key.secret)).status).toBe(200)
  })

  it("a project: every key of it is strict; an unknown project is a 404", async () => {
    upstream.always({ kind: "json", status: 200, body: anthropicMessage() })
    const key = await gw.createKey()
    const on = await admin("POST", `/admin/projects/${key.projectId}/strict-translation`, { body: { strict_translation: true } })
    expect(on.body).toMatchObject({ id: key.projectId, strict_translation: true })
    expect((await ask(key.secret)).status).toBe(400)
    expect((await admin("POST", "/admin/projects/proj_nope/strict-translation", { body: { strict_translation: true } })).status).toBe(404)
  })
})
