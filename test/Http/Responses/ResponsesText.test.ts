import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { anthropicMessage } from "../../support/AnthropicFixtures.ts"
import { openAiClient } from "../../support/OpenAiClient.ts"
import { openAiCompletion } from "../../support/OpenAiFixtures.ts"
import { responsesBody, textMessage } from "../../support/OpenAiResponsesFixtures.ts"
import { validateAgainst } from "../../support/OpenApiValidator.ts"
import { responsesConfig, responsesTargets, responsesUpstreams } from "../../support/ResponsesProviders.ts"
import { useGateway } from "../../support/UseGateway.ts"

/** `POST /v1/responses` without streaming, through the official SDK, on every kind of provider. */
describe("Responses: text on every provider", () => {
  const gw = useGateway({ upstreams: responsesUpstreams, config: (upstreams) => responsesConfig(upstreams) })
  let client: OpenAI
  beforeAll(() => {
    client = openAiClient(gw.url, gw.key.secret)
  })

  describe.each(responsesTargets)("$name", (target) => {
    it("responses.create answers with a response object that validates against the reference schema", async () => {
      const upstream = gw.upstreams[target.name]
      upstream.reply(target.kit.text)
      const response = await client.responses.create({ model: target.model, input: "Say hello", instructions: "Be brief." })
      expect(response.object).toBe("response")
      expect(response.id).toMatch(/^resp_/)
      expect(response.status).toBe("completed")
      expect(response.model).toBe(target.model)
      expect(response.output_text).toBe("Hello there!")
      expect(response.instructions).toBe("Be brief.")
      expect(response.usage).toMatchObject({ input_tokens: 19, output_tokens: 10, total_tokens: 29 })
      const { output_text: _text, ...wire } = response as unknown as Record<string, unknown>
      expect(validateAgainst("Response", wire)).toEqual([])
      expect(upstream.requests).toHaveLength(1)
    })
  })

  describe.each(responsesTargets)("$name stored", (target) => {
    it("responses.retrieve gives the response as it was answered; responses.delete removes it", async () => {
      gw.upstreams[target.name].reply(target.kit.text)
      const created = await client.responses.create({ model: target.model, input: "Say hello", metadata: { ticket: "7" } })
      const retrieved = await client.responses.retrieve(created.id)
      expect(retrieved).toEqual(created)
      await client.responses.delete(created.id)
      await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
      expect(gw.upstreams[target.name].requests).toHaveLength(1)
    })
  })

  it("the translation report names what a translated route dropped; strict mode refuses it before anything goes upstream", async () => {
    gw.upstreams.anthropic.reply(responsesTargets[1]!.kit.text)
    const body = { model: "claude-r", input: "hi", max_output_tokens: 100, text: { verbosity: "low" } }
    const res = await gw.postJson("/v1/responses", body)
    expect(res.status).toBe(200)
    const report = res.headers.get("x-gateway-translation") ?? ""
    expect(report).toContain("dropped=text.verbosity")
    expect(report).toContain("max_output_tokens->max_tokens")
    const strict = await gw.postJson("/v1/responses", body, { headers: { "x-gateway-strict": "true" } })
    expect(strict.status).toBe(400)
    expect(await strict.json()).toMatchObject({ error: { param: "text.verbosity", code: "strict_translation" } })
    expect(gw.upstreams.anthropic.requests).toHaveLength(1)

    // OpenAI takes the request in its own dialect: nothing is translated, strict mode has nothing to refuse.
    gw.upstreams.openai.reply(responsesTargets[0]!.kit.text)
    const native = await gw.postJson("/v1/responses", { ...body, model: "gpt-r" }, { headers: { "x-gateway-strict": "true" } })
    expect(native.status).toBe(200)
    expect(native.headers.get("x-gateway-translation")).toBeNull()
    expect((gw.upstreams.openai.requests[0]!.body as Record<string, any>)["text"]).toEqual({ verbosity: "low" })
  })

  it("a stop at the output cap is status incomplete with incomplete_details.reason max_output_tokens, on every provider", async () => {
    const cut: Record<string, unknown> = {
      openai: responsesBody([{ ...textMessage("msg_cut", "Hel"), status: "incomplete" }], { status: "incomplete", incomplete: "max_output_tokens" }),
      anthropic: anthropicMessage({ content: [{ type: "text", text: "Hel" }], stopReason: "max_tokens" }),
      gemini: { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] }, finishReason: "MAX_TOKENS", index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 } },
      groq: openAiCompletion({ content: "Hel", finish: "length" })
    }
    for (const target of responsesTargets) {
      gw.upstreams[target.name].reply({ kind: "json", status: 200, body: cut[target.name] })
      const response = await client.responses.create({ model: target.model, input: "Count to 100", max_output_tokens: 3 })
      expect(response.status, target.name).toBe("incomplete")
      expect(response.incomplete_details, target.name).toEqual({ reason: "max_output_tokens" })
      expect(response.output_text, target.name).toBe("Hel")
      const { output_text: _text, ...wire } = response as unknown as Record<string, unknown>
      expect(validateAgainst("Response", wire), target.name).toEqual([])
    }
  })
})
