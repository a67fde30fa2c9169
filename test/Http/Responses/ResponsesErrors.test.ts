import { describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { adminCall } from "../../support/AdminClient.ts"
import { responsesBody, responsesFrames, responsesTextEvents, textMessage } from "../../support/OpenAiResponsesFixtures.ts"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { validateStreamEvent } from "../../support/ResponsesSchemas.ts"
import { useGateway } from "../../support/UseGateway.ts"
import { billingConfig } from "../BillingSupport.ts"

const token = "admin-token-responses-errors-0123456789"

const answer = { kind: "json" as const, status: 200, body: responsesBody([textMessage("msg_1", "Hello there!")]) }

/** Refusals on /v1/responses come in the API's error shape, with the statuses and types the SDK maps. */
describe("Responses: errors", () => {
  const gw = useGateway({
    config: ({ upstream }) => billingConfig(upstream.url, { billing: { require_prices: true }, limits: { defaults: { key: { rpm: 2 } } } }),
    adminToken: token
  })
  const { upstream } = gw
  const admin = adminCall(() => gw.url, token)
  const ask = (client: OpenAI) => client.responses.create({ model: "gpt-priced", input: "hi" }).catch((error: unknown) => error)

  it("401, 403, 402 and 429 in the error shape, as the SDK's typed errors", async () => {
    upstream.always(answer)
    const unknownKey = await ask(openAiClient(gw.url, "sk-not-a-key"))
    expect(unknownKey).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((unknownKey as InstanceType<typeof OpenAI.APIError>).type).toBe("authentication_error")

    const embeddingsOnly = await gw.createKey({ scopes: ["embeddings"] })
    const forbidden = await ask(openAiClient(gw.url, embeddingsOnly.secret))
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect((forbidden as InstanceType<typeof OpenAI.APIError>).type).toBe("permission_error")

    const broke = await gw.createKey()
    expect((await admin("POST", `/admin/projects/${broke.projectId}/credits`, { body: { amount_usd: 0.000001, note: "test" } })).status).toBe(200)
    const unpaid = await ask(openAiClient(gw.url, broke.secret))
    expect((unpaid as InstanceType<typeof OpenAI.APIError>).status).toBe(402)
    expect((unpaid as InstanceType<typeof OpenAI.APIError>).type).toBe("billing_error")

    const limited = await gw.createKey()
    const client = openAiClient(gw.url, limited.secret)
    for (let i = 0; i < 2; i++) expect((await client.responses.create({ model: "gpt-priced", input: "hi" })).status).toBe("completed")
    const refused = await ask(client)
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError)
    expect((refused as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toMatch(/^\d+$/)
  })

  it("a bad field is a 400 naming it; an unknown model a 404", async () => {
    const res = await gw.postJson("/v1/responses", { model: "gpt-priced", input: [{ type: "message", role: "user", content: [{ type: "input_audio" }] }] })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: "input[0].content[0].type" } })
    const unknownField = await gw.postJson("/v1/responses", { model: "gpt-priced", input: "hi", frobnicate: 1 })
    expect(await unknownField.json()).toMatchObject({ error: { param: "frobnicate", code: "unknown_parameter" } })
    const missing = await gw.postJson("/v1/responses", { model: "nope", input: "hi" })
    expect(missing.status).toBe(404)
    // Hosted tools run inside OpenAI: refused by name, with what to do instead, on every provider.
    const hosted = await gw.postJson("/v1/responses", { model: "gpt-priced", input: "hi", tools: [{ type: "web_search" }] })
    expect(hosted.status).toBe(400)
    const refusal = ((await hosted.json()) as { error: { param: string; message: string } }).error
    expect(refusal.param).toBe("tools[0].type")
    expect(refusal.message).toContain("'web_search'")
    expect(refusal.message).toContain("'function' tool")
  })

  it("a stream that breaks after it started ends with an error event and response.failed", async () => {
    // OpenAI's own Responses stream (served natively), cut after the first text delta.
    upstream.reply({ kind: "sse", frames: responsesFrames(responsesTextEvents(["Hel", "lo"])).slice(0, 5), breakAfter: true })
    const key = await gw.createKey()
    const res = await gw.postJson("/v1/responses", { model: "gpt-priced", input: "hi", stream: true }, key.secret)
    expect(res.status).toBe(200)
    const events = (await res.text()).split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.split("\n")[1]!.slice(6)) as Record<string, any>)
    expect(events.map((e) => e.type).slice(-3)).toEqual(["response.output_text.delta", "error", "response.failed"])
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    for (const event of events) expect(validateStreamEvent(event)).toEqual([])
    const failed = events.at(-1)!.response
    expect(failed).toMatchObject({ status: "failed", error: { code: "server_error" }, model: "gpt-priced" })
    expect(failed.output.map((item: any) => [item.type, item.status])).toEqual([["message", "in_progress"]])
    expect(events.at(-2)).toMatchObject({ type: "error", code: "server_error", error: { type: "server_error", code: "server_error" } })
  })

  it("hostile bodies are 4xx naming what is wrong, never a 500", async () => {
    upstream.always(answer)
    const bodies: ReadonlyArray<unknown> = [
      { model: "gpt-priced", input: [null] },
      { model: "gpt-priced", input: [{ type: "message", role: "user", content: [null, 1] }] },
      { model: "gpt-priced", input: [{ type: "function_call", call_id: 1, name: {}, arguments: [] }] },
      { model: "gpt-priced", input: [{ type: "function_call_output", call_id: "c", output: [{ type: "input_image" }] }] },
      { model: "gpt-priced", input: [{ type: "reasoning", summary: "x" }] },
      { model: "gpt-priced", input: [{ type: "item_reference" }] },
      { model: "gpt-priced", input: "hi", tools: [null, "x"] },
      { model: "gpt-priced", input: "hi", tools: [{ type: "function", name: "f", parameters: [] }] },
      { model: "gpt-priced", input: "hi", tool_choice: 7 },
      { model: "gpt-priced", input: "hi", text: { format: { type: "json_schema", name: "x", schema: "nope" } } },
      { model: "gpt-priced", input: "hi", metadata: { a: 1 } },
      { model: "gpt-priced", input: "hi", previous_response_id: "" },
      { model: "gpt-priced", input: [{ role: "user", content: [{ type: "input_file" }] }] },
      { model: "gpt-priced", input: [{ role: "user", content: [{ type: "input_image", image_url: "data:image/png;base64,%%%" }] }] },
      { model: ["x"], input: "hi" },
      []
    ]
    for (const body of bodies) {
      const res = await gw.postJson("/v1/responses", body)
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400)
      expect(res.status, JSON.stringify(body)).toBeLessThan(500)
      expect(((await res.json()) as { error: { type: string } }).error.type).toBeTypeOf("string")
    }
  })
})
