import type { IncomingMessage, ServerResponse } from "node:http"
import { Transform } from "node:stream"
import * as NodeMultipart from "@effect/platform-node/NodeMultipart"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Multipart from "effect/http/Multipart"
import { watchBodyStall } from "./BodyStallWatch.ts"

export interface UploadLimits {
  /** The whole multipart body: the file limit plus room for the form around it. */
  readonly maxBodyBytes: number
  /** Longest silence of the client while the body is read. */
  readonly stallMs: number
}

/** Why a multipart stream failed, when the cause was ours rather than the parser's. */
export interface UploadOutcome {
  timedOut: boolean
  tooLarge: boolean
}

/**
 * The parts of a multipart upload read straight from Node's message through one small counting
 * stage, so that the file streams to the store with backpressure (never more than the streams'
 * buffers in memory), the body is cut at `maxBodyBytes`, and a client that stops sending for
 * `stallMs` ends the upload (`outcome` tells the route which, for the 413 or 408). The caller
 * bounds the form fields (`Multipart.MaxFieldSize`, `MaxParts`) and the file's own size.
 */
export const uploadParts = (
  message: IncomingMessage,
  response: ServerResponse | undefined,
  limits: UploadLimits,
  outcome: UploadOutcome
): Stream.Stream<Multipart.Part, Multipart.MultipartError> =>
  Stream.suspend(() => {
    // The platform's own readers answer `Expect: 100-continue`; this one reads the body itself.
    if (response !== undefined && message.headers.expect?.toLowerCase() === "100-continue" && !response.headersSent) {
      response.writeContinue()
    }
    let seen = 0
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        seen += chunk.length
        if (seen <= limits.maxBodyBytes) return callback(null, chunk)
        outcome.tooLarge = true
        callback(new Error("the upload is larger than its limit"))
      }
    })
    const unwatch = watchBodyStall(message, limits.stallMs, () => {
      outcome.timedOut = true
      message.unpipe(counter)
      counter.destroy(new Error("the client stopped sending the upload"))
    })
    message.pipe(counter)
    return NodeMultipart.stream(counter, message.headers).pipe(
      Stream.ensuring(
        Effect.sync(() => {
          unwatch()
          message.unpipe(counter)
        })
      )
    )
  })
