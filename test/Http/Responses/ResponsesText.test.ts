import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import { openAiClient } from "../../support/OpenAiClient.ts"
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
})
