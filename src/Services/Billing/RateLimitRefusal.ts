import { GatewayError, RateLimited } from "../../Domain/GatewayError.ts"
import type { WindowCharge, WindowDecision } from "../RateLimits/SlidingWindows.ts"

/**
 * A 429 of the gateway's own limits that says which limit refused (the key's, the project's or
 * the project's limit on one model), its unit and number, and what to do. `Retry-After` is set
 * only when waiting can help: a request heavier than a TPM limit never fits, so it gets none and
 * the message says so.
 */

type Refused = Extract<WindowDecision, { admitted: false }>

/** Who a window belongs to, from its id (`k:<key>:r`, `p:<project>:t`, `m:<project>:<model>:t`; see `chargesOf`). */
export const windowSubject = (id: string): string => {
  const body = id.slice(2, -2)
  switch (id[0]) {
    case "k":
      return `the API key ${body}`
    case "p":
      return `the project ${body}`
    default: {
      // Project ids have no colon; model ids may.
      const split = body.indexOf(":")
      return `the project ${body.slice(0, split)}'s limit on the model '${body.slice(split + 1)}'`
    }
  }
}

const unitOf = (id: string) => (id.endsWith(":r") ? "requests per minute (rpm)" : "tokens per minute (tpm)")

/** The window that refused: one the request can never fit first, else the first one that is full. */
export const refusingCharge = (decision: Refused, charges: ReadonlyArray<WindowCharge>): WindowCharge | undefined => {
  const remaining = new Map(decision.states.map((state) => [state.id, state.remaining]))
  const full = charges.filter((charge) => charge.weight > (remaining.get(charge.id) ?? charge.limit))
  return full.find((charge) => charge.weight > charge.limit) ?? full[0]
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

export const rateLimited = (decision: Refused, headers: Record<string, string>, charges: ReadonlyArray<WindowCharge>): GatewayError => {
  const charge = refusingCharge(decision, charges)
  const subject = charge === undefined ? "a rate limit" : windowSubject(charge.id)
  if (decision.tooLarge && charge !== undefined && charge.weight > charge.limit) {
    return new GatewayError({
      reason: new RateLimited({
        message: `This request counts ${charge.weight} tokens (its input plus its output cap), more than ${subject} allows in a minute: ${charge.limit} ${unitOf(charge.id)}. ` +
          `Waiting will not help, so no Retry-After is set: send a smaller max_tokens (max_output_tokens on /v1/responses) or a shorter input, or have the limit raised.`,
        code: "request_too_large",
        headers
      })
    })
  }
  const limit = charge === undefined
    ? "Rate limit reached"
    : charge.id.endsWith(":r")
      ? `Rate limit reached: ${subject} allows ${charge.limit} ${unitOf(charge.id)}`
      : `Rate limit reached: ${subject} allows ${charge.limit} ${unitOf(charge.id)}; this request counts ${charge.weight} (its input plus its output cap)`
  return new GatewayError({
    reason: new RateLimited({
      message: `${limit}. Retry after ${seconds(decision.retryAfterMs)} s (the Retry-After header).`,
      retryAfterMs: decision.retryAfterMs,
      code: "rate_limit_exceeded",
      headers
    })
  })
}
