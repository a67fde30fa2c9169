import type { Server } from "node:http"
import type { Socket } from "node:net"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError } from "../Domain/GatewayError.ts"
import { errorBody } from "./ErrorResponse.ts"
import { handle } from "./Handler.ts"
import { BodyReadTimeout } from "./JsonBody.ts"
import { incomingMessageOf, serverResponseOf } from "./NodeMessage.ts"
import { lingerAfterRefusal } from "./RefusalDrain.ts"

const controlCharacter = /[\u0000-\u001f\u007f]/

/**
 * Whether a request target can be routed at all. Node refuses raw control bytes in the request
 * line itself, so only %-escapes can smuggle them in: a malformed escape, or one that decodes to
 * a control character (NUL included), is refused here before any route reads a path parameter
 * or a query value and hands it to the database.
 */
export const checkRequestTarget = (url: string): GatewayError | undefined => {
  if (url.indexOf("%") === -1) return undefined
  let decoded: string
  try {
    decoded = decodeURIComponent(url)
  } catch {
    return GatewayError.invalid("The request URL has a malformed %-escape.", undefined, "invalid_url")
  }
  return controlCharacter.test(decoded)
    ? GatewayError.invalid("The request URL contains an escaped control character (%00-%1F or %7F).", undefined, "invalid_url")
    : undefined
}

/**
 * Checks every request target before routing (see `checkRequestTarget`). Most targets carry no
 * `%` at all: for them this is one `indexOf`. A refusal (any 4xx or 5xx) answered while the
 * request's body is still arriving keeps the connection reading the rest after it is sent
 * (`lingerAfterRefusal`), so that a client that sends before it reads gets it; a request whose
 * body was read pays one check.
 */
export const RequestGuardLive = HttpRouter.middleware(
  (httpEffect) =>
    Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const refused = checkRequestTarget(request.url)
      const answer = refused === undefined ? httpEffect : handle(Effect.fail(refused))
      const message = incomingMessageOf(request)
      if (message === undefined) return answer
      return Effect.map(answer, (response) => {
        if (response.status >= 400 && !message.complete) {
          const nodeResponse = serverResponseOf(request)
          if (nodeResponse !== undefined) lingerAfterRefusal(message, nodeResponse, Context.get(fiber.context, BodyReadTimeout))
        }
        return response
      })
    }),
  { global: true }
)

/** Paths longer than this are routed like any other (an unknown id is a 404 from its route). */
export const routerConfig = { maxParamLength: 16 * 1024 }

const statusText: Readonly<Record<number, string>> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" }

/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers that take
 * longer than `headersTimeout` or are too large) never reach a route; Node would answer them
 * with an empty body. This answers them with the error envelope instead, then closes.
 */
export const answerClientErrors = (server: Server): Server => {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage != null) {
      socket.destroy()
      return
    }
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400
    const message = status === 431
      ? "The request headers are too large."
      : status === 408
      ? "The request headers were not received in time."
      : "The request could not be parsed as HTTP."
    const failure = status === 400 ? GatewayError.invalid(message, undefined, "malformed_request") : GatewayError.invalid(message)
    const body = JSON.stringify({ error: { ...errorBody(failure, { requestId: "" }).body.error, type: "invalid_request_error" } })
    socket.end(
      `HTTP/1.1 ${status} ${statusText[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    )
  })
  return server
}
