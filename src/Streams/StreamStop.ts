import { GatewayError, ServiceUnavailable } from "../Domain/GatewayError.ts"

/**
 * When the server stops the streams still open: its shutdown grace ran out. A streamed body
 * listens for it so that it can end itself with a frame saying so (see SseBody.ts).
 */
export interface StreamStop {
  readonly stopped: boolean
  /** Calls `listener` once, when streams must stop; the returned function unsubscribes. */
  readonly subscribe: (listener: () => void) => () => void
}

/** For responses served outside a stopping server (tests that build the app without one). */
export const neverStops: StreamStop = { stopped: false, subscribe: () => () => {} }

/** What a stream cut by the shutdown tells its client in its last frame. */
export const stoppedMessage = "The gateway stopped before this stream ended; retry the request."

/** How long a client refused by a stopping instance should wait before retrying (another instance takes it). */
const retryAfterMs = 1000

/** The answer to a request that a stopping server refuses, or stops before it sent anything. */
export const shuttingDown = (): GatewayError =>
  new GatewayError({
    reason: new ServiceUnavailable({
      message: "The gateway is shutting down; retry the request.",
      retryAfterMs,
      code: "shutting_down"
    })
  })
