import type { ChatCompletion } from "./ChatCompletion.ts"
import { usageToWire } from "./Usage.ts"

/** A completion as the `chat.completion` object of spec 2.5, under the gateway's id and the model used. */
export const completionToWire = (completion: ChatCompletion, envelope: { readonly id: string; readonly created: number; readonly model: string }) => ({
  id: envelope.id,
  object: "chat.completion" as const,
  created: envelope.created,
  model: envelope.model,
  choices: completion.choices.map((choice) => ({
    index: choice.index,
    message: {
      role: "assistant" as const,
      content: choice.message.content,
      refusal: choice.message.refusal,
      ...(choice.message.tool_calls === undefined ? {} : { tool_calls: choice.message.tool_calls }),
      ...(choice.message.reasoning_content === undefined ? {} : { reasoning_content: choice.message.reasoning_content })
    },
    logprobs: choice.logprobs,
    finish_reason: choice.finish_reason
  })),
  usage: usageToWire(completion.usage),
  ...(completion.systemFingerprint === undefined ? {} : { system_fingerprint: completion.systemFingerprint })
})
