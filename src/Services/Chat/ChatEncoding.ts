import type * as Stream from "effect/Stream"
import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import { completionToWire } from "../../Domain/ChatCompletionWire.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import type { StreamEncoder } from "../../Streams/ChatEventStream.ts"
import { ChunkNormaliser, type ChunkWire } from "../../Streams/ChunkNormaliser.ts"
import type { Served } from "../Routing/RoutedAttempts.ts"
import type { Answered, Streamed } from "../Usage/RequestOutcome.ts"

/**
 * How a dialect answers: the body of a non-streamed answer from the neutral completion and the
 * route that served it, and a fresh stream encoder per attempt (fed the neutral events of that
 * attempt). Chat completions, Responses and Messages differ only here; the gates, documents,
 * routing, retries, fallbacks, translation report and metering before it are the same
 * (`ChatCompletions.run`).
 */
export interface ChatEncoding<Body, Chunk> {
  readonly json: (completion: ChatCompletion, at: { readonly model: string; readonly created: number; readonly served: Served }) => Body
  readonly stream: (model: string, created: number) => StreamEncoder<Chunk>
}

/** The answer, and what it used (the meter's one input; a missing field does not compile). */
export type ChatResult<Body, Chunk> =
  | { readonly _tag: "Json"; readonly body: Body; readonly outcome: Answered }
  /** Objects in the dialect's order; fails only before the first one (then nothing was sent yet). */
  | { readonly _tag: "Stream"; readonly chunks: Stream.Stream<Chunk, GatewayError>; readonly outcome: Streamed }

/** The chat-completions dialect: `chat.completion` objects and spec 6.3 chunks under one `svc_` id. */
export const chatEncoding = (includeUsage: boolean): ChatEncoding<ReturnType<typeof completionToWire>, ChunkWire> => {
  const id = Ids.responseId()
  return {
    json: (completion, at) => completionToWire(completion, { id, created: at.created, model: at.model }),
    stream: (model, created) => new ChunkNormaliser({ id, created, model }, includeUsage)
  }
}

/** A neutral answer, for a dialect that encodes the chunk sequence itself (Messages). */
export interface NeutralCompletion {
  readonly completion: ChatCompletion
  readonly served: Served
  readonly created: number
}

/**
 * The neutral completion as it is, and the chunk sequence of spec 6.3 (its own `[DONE]`-free
 * order: role, deltas, finish, usage when asked): a dialect whose encoder reads chunks rather
 * than events (Messages) turns them into its own objects.
 */
export const chunkEncoding = (includeUsage: boolean): ChatEncoding<NeutralCompletion, ChunkWire> => {
  const id = Ids.responseId()
  return {
    json: (completion, at) => ({ completion, served: at.served, created: at.created }),
    stream: (model, created) => new ChunkNormaliser({ id, created, model }, includeUsage)
  }
}
