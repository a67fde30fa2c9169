import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { type AccessRecord, jsonLine, textLine } from "../Services/AccessLog/AccessLogLine.ts"
import type { AccessLogMode } from "../Services/AccessLog/AccessLogSettings.ts"
import type { AccessLogWriter } from "../Services/AccessLog/AccessLogWriter.ts"
import { activateNotes, errors, keys, meters } from "./AccessLogNotes.ts"
import { knownRequestId } from "./Handler.ts"

const maxRoute = 512

const recordOf = (req: IncomingMessage, res: ServerResponse, time: number, startedAt: number, level: AccessRecord["level"]): AccessRecord => {
  // A response that never finished went to a client that left: 499, as the usage row says.
  const status = res.writableFinished ? res.statusCode : 499
  const url = req.url ?? ""
  const query = url.indexOf("?")
  const route = query === -1 ? url : url.slice(0, query)
  const meter = meters.get(req)
  const key = keys.get(req)
  const error = meter?.error
  return {
    time,
    level: status >= 500 ? "ERROR" : level,
    requestId: knownRequestId(req),
    method: req.method ?? "",
    route: route.length > maxRoute ? route.slice(0, maxRoute) : route,
    status,
    model: meter === undefined ? undefined : (meter.served?.model ?? meter.requestedModel ?? undefined),
    provider: meter?.served?.provider,
    attempts: meter?.log.attempts.length,
    latencyMs: performance.now() - startedAt,
    ttftMs: meter?.firstTokenAt === undefined ? undefined : Math.max(0, meter.firstTokenAt - time),
    promptTokens: meter?.usage?.promptTokens,
    completionTokens: meter?.usage?.completionTokens,
    keyId: key?.keyId,
    projectId: key?.projectId,
    errorCode: error === undefined ? errors.get(req) : (error.code ?? error.type),
    client: req.socket.remoteAddress
  }
}

/**
 * One access-log line per request, built once when its response closes (after a stream's last
 * byte, or when the client went away) from what the handler noted; a listener per request and
 * no Effect work. Requests Node's parser refused never reach here.
 */
export const withAccessLog = (server: Server, mode: AccessLogMode, writer: AccessLogWriter): Server => {
  if (!mode.enabled) return server
  activateNotes()
  const format = mode.format === "json" ? jsonLine : textLine
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const time = Date.now()
    const startedAt = performance.now()
    res.once("close", () => {
      // Only server errors pass a level above the access log's (a client that left is a 499): the rest are not even built.
      if (mode.errorsOnly && (!res.writableFinished || res.statusCode < 500)) return
      writer.write(format(recordOf(req, res, time, startedAt, mode.level)))
    })
  }
  server.on("request", listener)
  // Requests a draining server refuses itself (ServerDrain.ts) get their line too.
  server.on("drainRefused", listener)
  return server
}
