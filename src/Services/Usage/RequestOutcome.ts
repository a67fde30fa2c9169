import * as Effect from "effect/Effect"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import type { TranslationReport } from "../../Domain/TranslationReport.ts"
import type { Usage } from "../../Domain/Usage.ts"
import type { StreamTally } from "../../Streams/StreamTally.ts"
import type { Served } from "../Routing/RoutedAttempts.ts"

/**
 * What a whole (non-streamed) answer used: every field the usage row is priced from, each one
 * required, so an endpoint that forgets one does not compile (`test/Services/Usage/RequestOutcomeTypes.test.ts`).
 * The attempts are in the request's `AttemptLog`, which the router appends to as it goes (a
 * failed request lists them too).
 */
export interface Answered {
  readonly _tag: "Answered"
  /** The route that served; undefined when no provider was called (nothing to price). */
  readonly served: Served | undefined
  readonly usage: Usage | undefined
  /** Units priced per unit (images, audio seconds, tool calls); 0 for token-priced answers. */
  readonly units: number
  /** A price set by the endpoint itself (a tool call's), instead of the catalogue's. */
  readonly fixedCostNanoUsd: number | undefined
  /** What the serving provider's codec dropped or rewrote of the client's request. */
  readonly translation: TranslationReport | undefined
}

/** A streamed answer: its tally, read when the request ends (a cancelled stream is billed too). */
export interface Streamed {
  readonly _tag: "Streamed"
  readonly tally: StreamTally
  /** The prompt's estimate, used only if the stream never reported usage. */
  readonly estimatePromptTokens: () => number
  /** The translation report of the route that served. */
  readonly translation: (served: Served) => TranslationReport | undefined
}

/** What happened, as the meter takes it: in one piece, in one place (`MeteredEndpoint`). */
export type RequestOutcome = Answered | Streamed

/** An endpoint service's answer: the body in the client's format, and what it used. */
export interface Outcome<Body> {
  readonly body: Body
  readonly outcome: RequestOutcome
}

/** Nothing used: the answer of a request that reached no provider. */
export const nothingUsed: Answered = {
  _tag: "Answered",
  served: undefined,
  usage: undefined,
  units: 0,
  fixedCostNanoUsd: undefined,
  translation: undefined
}

/**
 * A failure after some work was done (calls answered, audio measured): the error the client
 * gets, and what was used, so the request is billed for it.
 */
export class Spent {
  readonly _tag = "Spent"
  readonly error: GatewayError
  readonly outcome: Answered
  constructor(error: GatewayError, outcome: Answered) {
    this.error = error
    this.outcome = outcome
  }
}

/** `self`'s failures as `Spent`: what `used` says was used by then is billed with the error. */
export const spentOnFailure = <A, R>(self: Effect.Effect<A, GatewayError, R>, used: () => Answered): Effect.Effect<A, Spent, R> =>
  Effect.mapError(self, (error) => new Spent(error, used()))
