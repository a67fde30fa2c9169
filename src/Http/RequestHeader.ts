import { IncomingMessage } from "node:http"
import type { HttpServerRequest } from "effect/http"

/**
 * One request header, by its lower-case name, read from Node's own header object when the
 * request came through Node: the platform's `headers` copies every header into a new object on
 * first use, which the model endpoints would pay on every request for the two or three they
 * read. A repeated header comes joined with ", ", as the platform's would.
 */
export const requestHeader = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const source = request.source
  if (!(source instanceof IncomingMessage)) return request.headers[name]
  const value = source.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}
