import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Formatter from "effect/Formatter"
import * as Logger from "effect/Logger"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { CurrentPrincipal } from "./Authentication.ts"
import { requestIdOf } from "./Handler.ts"

/**
 * One JSON object per line on stdout, as `Logger.consoleJson` writes them, with the request's
 * id and, once the key is checked, its project and key ids (never the key) among the
 * annotations. They are read from the logging fiber when a line is written, instead of being
 * annotated on every request: a log annotation is a context entry per request, paid by the
 * many requests that never log.
 */
export const requestJsonLogger: Logger.Logger<unknown, void> = Logger.make((options) => {
  const entry = Logger.formatStructured.log(options)
  const context = options.fiber.context
  const request = Context.getOrUndefined(context, HttpServerRequest.HttpServerRequest)
  if (request !== undefined) {
    const annotations: Record<string, unknown> = { request_id: requestIdOf(request) }
    const principal = Context.getOrUndefined(context, CurrentPrincipal)
    if (principal !== undefined) {
      annotations["project_id"] = principal.projectId
      annotations["key_id"] = principal.keyId
    }
    // Annotations the code made itself come last, so they win.
    Object.assign(annotations, entry.annotations)
    options.fiber.getRef(Console.Console).log(Formatter.formatJson({ ...entry, annotations }))
    return
  }
  options.fiber.getRef(Console.Console).log(Formatter.formatJson(entry))
})
