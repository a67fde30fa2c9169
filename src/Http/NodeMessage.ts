import { IncomingMessage, ServerResponse } from "node:http"
import { toServerResponse } from "@effect/platform-node/NodeHttpServerRequest"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"

/**
 * Node's own request and response behind a platform request, for the hot paths that read or
 * write them directly; `undefined` for requests that did not come through Node (tests).
 */
export const incomingMessageOf = (request: HttpServerRequest.HttpServerRequest): IncomingMessage | undefined =>
  request.source instanceof IncomingMessage ? request.source : undefined

export const serverResponseOf = (request: HttpServerRequest.HttpServerRequest): ServerResponse | undefined => {
  try {
    const response = toServerResponse(request)
    return response instanceof ServerResponse ? response : undefined
  } catch {
    return undefined
  }
}

/**
 * One request header, by its lower-case name, read from Node's own header object when the
 * request came through Node: the platform's `headers` copies every header into a new object on
 * first use, which the model endpoints would pay on every request for the two or three they
 * read. A repeated header comes joined with ", ", as the platform's would.
 */
export const requestHeader = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const message = incomingMessageOf(request)
  if (message === undefined) return request.headers[name]
  const value = message.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}
