import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { imageWorstCase } from "../Domain/AdmissionCost.ts"
import type { ImageRequest } from "../Domain/ImageRequest.ts"
import { decodeImageGenerationRequest, decodeImageRequest } from "../Domain/ImageRequestDecoder.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { ImageLinks, imageLinkPath } from "../Services/Images/ImageLinks.ts"
import { Images } from "../Services/Images/Images.ts"
import type { AttemptLog } from "../Services/Routing/RoutedAttempts.ts"
import { answerWith, meteredEndpoint } from "./MeteredEndpoint.ts"
import { requestHeader } from "./NodeMessage.ts"
import { route } from "./Route.ts"
import { trimEndChars } from "../Domain/TrimChars.ts"

const firstOf = (value: string | undefined) => value?.split(",", 1)[0]?.trim()
const hostPattern = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

/**
 * The gateway's address as the client reached it, for the image links it hands out:
 * `server.public_base_url` when set, else the scheme and host the request came with
 * (`X-Forwarded-Proto`/`X-Forwarded-Host` from a proxy in front, else `Host` over plain HTTP).
 * The link goes back to the client that sent these headers, so they can only mislead it.
 */
export const publicBaseUrl = (configured: string | undefined, header: (name: string) => string | undefined): string => {
  if (configured !== undefined) return trimEndChars(configured, "/")
  const proto = firstOf(header("x-forwarded-proto"))?.toLowerCase()
  const host = firstOf(header("x-forwarded-host")) ?? header("host")?.trim()
  return `${proto === "https" ? "https" : "http"}://${host !== undefined && hostPattern.test(host) ? host : "localhost"}`
}

const respond = (request: ImageRequest, log: AttemptLog, projectId: string) =>
  Effect.gen(function* () {
    const http = yield* HttpServerRequest.HttpServerRequest
    const configured = (yield* GatewayConfigFile).config.server.public_base_url
    const { body, outcome } = yield* (yield* Images).run(request, log, projectId, publicBaseUrl(configured, (name) => requestHeader(http, name)))
    return answerWith(outcome, (headers) => HttpServerResponse.jsonUnsafe(body, { headers }))
  })

const generations = meteredEndpoint("images", "images", decodeImageGenerationRequest, (request, log, principal) =>
  respond(request, log, principal.projectId), imageWorstCase)

const images = meteredEndpoint("images", "images", decodeImageRequest, (request, log, principal) => respond(request, log, principal.projectId), imageWorstCase)

/** An image link: no key (the signature is the credential), the stored type, cacheable until it expires. */
const generated = Effect.gen(function* () {
  const name = (yield* HttpRouter.params)["name"] ?? ""
  const query = new URL((yield* HttpServerRequest.HttpServerRequest).url, "http://gateway").searchParams
  const image = yield* (yield* ImageLinks).open(name, query.get("expires") ?? undefined, query.get("signature") ?? undefined)
  return HttpServerResponse.stream(image.stream, {
    contentType: image.contentType,
    contentLength: image.bytes,
    headers: { "cache-control": `private, max-age=${image.secondsLeft}`, "x-content-type-options": "nosniff" }
  })
})

export const imagesRoutes = [
  route("POST", "/v1/images/generations", generations),
  route("POST", "/v1/images", images),
  route("GET", `${imageLinkPath}/:name`, generated)
]
