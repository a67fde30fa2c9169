import type { Usage } from "../Domain/Usage.ts"

/** The route serving a stream: the catalogue model, its provider and the provider's model. */
export interface ServedRoute {
  readonly model: string
  readonly provider: string
  readonly upstreamModel: string
}

/**
 * What a routed stream has carried so far: the route now serving, its usage, when the first
 * chunk went out and how much text was generated (the estimate when usage never comes). Written
 * by the stream stage alone (`encodedEvents`), as the events pass; read once, when the request
 * ends, so a stream cancelled half-way is billed for what it used. It is the stream's outcome:
 * the meter takes it as a whole value (`RequestOutcome`), never field by field.
 */
export class StreamTally {
  served: ServedRoute | undefined
  usage: Usage | undefined
  firstChunkAt: number | undefined
  generatedBytes = 0
}
