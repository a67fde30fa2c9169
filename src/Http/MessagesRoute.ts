import type * as Arr from "effect/Array"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { messagesStatusOf } from "../Dialects/DialectErrors.ts"
import { decodeMessagesRequest, type MessagesRequest } from "../Dialects/Messages/MessagesRequest.ts"
import { messageFromCompletion } from "../Dialects/Messages/MessagesResponse.ts"
import { errorEventFrame, MessagesStreamEncoder, pingFrame } from "../Dialects/Messages/MessagesStream.ts"
import { chatWorstCase } from "../Domain/AdmissionCost.ts"
import type { Principal } from "../Domain/ApiKey.ts"
import type { ChatRequest } from "../Domain/ChatRequest.ts"
import { GatewayError } from "../Domain/GatewayError.ts"
import * as Ids from "../Domain/Ids.ts"
import { ChatCompletions, type RunOptions } from "../Services/Chat/ChatCompletions.ts"
import { chunkEncoding } from "../Services/Chat/ChatEncoding.ts"
import type { ChunkWire } from "../Streams/ChunkNormaliser.ts"
import { nothingUsed } from "../Services/Usage/RequestOutcome.ts"
import { type Answer, answerWith, type EndpointOptions, meteredEndpoint } from "./MeteredEndpoint.ts"
import { requestHeader } from "./NodeMessage.ts"
import { route } from "./Route.ts"
import { isStrict } from "./StrictTranslation.ts"
import { type SseEncoding, stoppedMessage, type StreamResponseContext, streamResponse } from "./SseResponse.ts"

const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8")
const ping = utf8(pingFrame)

/** Anthropic's events for one stream; the encoder keeps the open block and the stop reason between batches. */
const messagesEncoding = (encoder: MessagesStreamEncoder): SseEncoding<ChunkWire> => ({
  batch: (chunks: Arr.NonEmptyReadonlyArray<ChunkWire>) => utf8(encoder.push(chunks)),
  done: () => [utf8(encoder.end())],
  failed: (error: GatewayError) => [utf8(errorEventFrame(messagesStatusOf(error.reason).type, error.reason.message))],
  keepAlive: ping,
  stopped: [utf8(errorEventFrame("overloaded_error", stoppedMessage))]
})

/**
 * `anthropic-version` is required, as by Anthropic; any dated version is accepted, since the
 * gateway answers in the shape every version shares. Checked before the body is read.
 * @see https://platform.claude.com/docs/en/api/versioning
 */
const versionRefusal = (request: HttpServerRequest.HttpServerRequest): GatewayError | undefined => {
  const version = requestHeader(request, "anthropic-version")?.trim()
  if (version === undefined || version === "") return GatewayError.invalid("anthropic-version: header is required", "anthropic-version")
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) {
    return GatewayError.invalid(`anthropic-version: '${version}' is not a valid version (expected a date such as 2023-06-01)`, "anthropic-version")
  }
  return undefined
}

const endpointOptions: EndpointOptions = { dialect: "messages", apiKeyHeader: true, headers: versionRefusal }

/** Strict translation (header, key or project), and the Anthropic-only parts of the request. */
const runOptions = (request: HttpServerRequest.HttpServerRequest, principal: Principal, decoded: MessagesRequest): RunOptions => {
  const strict = isStrict(request, principal)
  return {
    ...(strict ? { strict: true } : {}),
    ...(decoded.requiresNative === undefined ? {} : { only: { kind: "anthropic", field: decoded.requiresNative } })
  }
}

/**
 * The neutral request with the client's own body attached: an Anthropic provider gets it as it
 * came (with the client's `anthropic-beta` opt-ins), every other provider the translation.
 */
const withNative = (http: HttpServerRequest.HttpServerRequest, request: MessagesRequest): ChatRequest => {
  const beta = requestHeader(http, "anthropic-beta")
  return {
    ...request.chat,
    native: { api: "anthropic-messages", body: request.body, ...(beta === undefined ? {} : { headers: { "anthropic-beta": beta } }) }
  }
}

const messages = meteredEndpoint(
  "chat",
  "chat",
  decodeMessagesRequest,
  (request, log, principal) =>
    Effect.flatMap(Effect.context<ChatCompletions | HttpServerRequest.HttpServerRequest>(), (context) => {
      const http = Context.get(context, HttpServerRequest.HttpServerRequest)
      const chat = withNative(http, request)
      return Context.get(context, ChatCompletions).run(chat, log, principal.projectId, chunkEncoding(chat.includeUsage), runOptions(http, principal, request))
    }).pipe(
      Effect.map((result): Answer<StreamResponseContext> => {
        if (result._tag === "Json") {
          const { completion, served } = result.body
          // Served natively: Anthropic's message as it came, named by the catalogue model.
          const body = completion.native !== undefined
            ? { ...completion.native, model: served.model }
            : messageFromCompletion(completion, { id: Ids.messageId(), model: served.model })
          return answerWith(result.outcome, (headers) => HttpServerResponse.jsonUnsafe(body, { headers }))
        }
        const encoder = new MessagesStreamEncoder({ id: Ids.messageId(), model: request.model })
        return { outcome: result.outcome, response: (headers) => streamResponse(result.chunks, messagesEncoding(encoder), headers) }
      })
    ),
  (request, context) => chatWorstCase(request.chat, context),
  endpointOptions
)

/**
 * `POST /v1/messages/count_tokens`: the same body without `max_tokens`, answered with
 * `{input_tokens}`: Anthropic's own count when the model has an Anthropic deployment (the body
 * as sent), else the gateway's estimate of the prompt (the figure admission reserves with,
 * `x-gateway-token-count: estimate`). Nothing is billed.
 * @see https://platform.claude.com/docs/en/api/messages/count_tokens
 */
const countTokens = meteredEndpoint(
  "chat",
  "chat",
  (body) => decodeMessagesRequest({ ...body, max_tokens: body["max_tokens"] ?? 1 }),
  (request) =>
    Effect.flatMap(Effect.context<ChatCompletions | HttpServerRequest.HttpServerRequest>(), (context) => {
      const counting = Context.get(context, ChatCompletions).countTokens(withNative(Context.get(context, HttpServerRequest.HttpServerRequest), request))
      // Nothing is billed: a count is not a completion.
      return Effect.map(counting, ({ inputTokens, counted }) =>
        answerWith(nothingUsed, (headers) =>
          HttpServerResponse.jsonUnsafe(
            { input_tokens: inputTokens },
            { headers: { ...headers, "x-gateway-token-count": counted ? "provider" : "estimate" } }
          )))
    }),
  undefined,
  endpointOptions
)

export const messagesRoutes = [
  route("POST", "/v1/messages", messages, { dialect: "messages" }),
  route("POST", "/v1/messages/count_tokens", countTokens, { dialect: "messages" })
]
