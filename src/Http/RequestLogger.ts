import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Formatter from "effect/Formatter"
import * as Logger from "effect/Logger"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { CurrentPrincipal } from "./Authentication.ts"
import { requestIdOf } from "./Handler.ts"

/**
 * One JSON object per line on stdout, in the schema the access log shares (AccessLogLine.ts):
 * `time`, `level`, `log` (`app` here, `access` there), then, for a line written inside a
 * request, `request_id` and, once the key is checked, `project_id` and `key_id` (never the
 * key), then `message`, `cause`, the code's own `annotations`, `spans` and `fiber_id`. The
 * request fields are read from the logging fiber when a line is written, instead of being
 * annotated on every request: a log annotation is a context entry per request, paid by the many
 * requests that never log.
 */
export const requestJsonLogger: Logger.Logger<unknown, void> = Logger.make((options) => {
  const entry = Logger.formatStructured.log(options)
  const line: Record<string, unknown> = { time: entry.timestamp, level: entry.level, log: "app" }
  const context = options.fiber.context
  const request = Context.getOrUndefined(context, HttpServerRequest.HttpServerRequest)
  if (request !== undefined) {
    line["request_id"] = requestIdOf(request)
    const principal = Context.getOrUndefined(context, CurrentPrincipal)
    if (principal !== undefined) {
      line["project_id"] = principal.projectId
      line["key_id"] = principal.keyId
    }
  }
  line["message"] = entry.message
  if (entry.cause !== undefined) line["cause"] = entry.cause
  line["annotations"] = entry.annotations
  line["spans"] = entry.spans
  line["fiber_id"] = entry.fiberId
  options.fiber.getRef(Console.Console).log(Formatter.formatJson(line))
})
