import OpenAI from "openai"

/** The official SDK pointed at a test gateway, with `secret` as its key and no retries (a failure shows at once). */
export const openAiClient = (gatewayUrl: string, secret: string): OpenAI => new OpenAI({ apiKey: secret, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 })
