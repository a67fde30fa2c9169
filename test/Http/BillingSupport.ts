import { openAiCompletion } from "../support/OpenAiFixtures.ts"

/**
 * The priced model of the billing tests: $1 per million input tokens (1,000 nano-dollars a
 * token) and $2 per million output tokens, at most 100 output tokens. "hi" is bounded at 27
 * prompt tokens for the hold (16 per request, 8 per message, its 2 bytes + 1; PromptTokenBound.ts)
 * and estimated at 5 for TPM, so a request's worst case is 27 x 1,000 + 100 x 2,000 = 227,000
 * nano-dollars and 105 tokens; the fixture's usage (19 in, 10 out) costs 39,000 nano-dollars
 * and 29 tokens.
 */
export const worstCaseNano = 227_000
export const actualNano = 39_000

export const billingConfig = (upstreamUrl: string, extra: Record<string, unknown> = {}) => ({
  providers: [{ id: "openai", kind: "openai", base_url: `${upstreamUrl}/v1`, api_key: "sk-upstream-secret" }],
  models: [
    {
      id: "gpt-priced",
      kind: "chat",
      deployments: [{ provider: "openai", model: "gpt-4o-mini" }],
      capabilities: { max_output_tokens: 100 },
      pricing: { input_per_mtok: 1, output_per_mtok: 2 }
    },
    { id: "gpt-unpriced", kind: "chat", deployments: [{ provider: "openai", model: "gpt-4o-mini" }] }
  ],
  ...extra
})

export const hi = (model = "gpt-priced") => ({ model, messages: [{ role: "user", content: "hi" }] })

export const completion = (delayMs?: number) => ({ kind: "json" as const, status: 200, body: openAiCompletion(), ...(delayMs === undefined ? {} : { delayMs }) })

/** Polls `read` until `done` holds (a settlement is written when the request's scope closes, after the response). */
export const eventually = async <A>(read: () => Promise<A>, done: (value: A) => boolean, timeoutMs = 5_000): Promise<A> => {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > until) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The admin API's billing operations, as the OpenAPI document lists them. */
export const billingAdminOperations = [
  "GET /admin/projects/{project_id}/billing",
  "GET /admin/projects/{project_id}/credits",
  "POST /admin/projects/{project_id}/credits",
  "POST /admin/projects/{project_id}/spend-limits",
  "POST /admin/projects/{project_id}/rate-limits",
  "POST /admin/billing/reconcile"
]
