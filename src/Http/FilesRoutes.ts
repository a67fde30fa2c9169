import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { GatewayError } from "../Domain/GatewayError.ts"
import { FilePurpose, maxExpirySeconds, minExpirySeconds } from "../Domain/StoredFile.ts"
import { type FileFields, Files, type StagedFile } from "../Services/Files/Files.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { rateLimitedOnly } from "./MeteredEndpoint.ts"
import { readMultipartForm } from "./MultipartForm.ts"
import { route } from "./Route.ts"

const files = { filesEndpoint: true } as const
const isPurpose = Schema.is(FilePurpose)

/** Files belong to people: a key without a user may not touch them (spec part 5). */
const withUser = <A, R>(effect: Effect.Effect<A, GatewayError, R>) =>
  authenticated(
    "files",
    Effect.flatMap(CurrentPrincipal, (principal): Effect.Effect<A, GatewayError, R> =>
      principal.userId === null
        ? Effect.fail(GatewayError.forbidden("This API key has no user; the files endpoints need a key that belongs to a user. Make one with 'npm run admin -- keys create --project <project_id> --user <user_id>' ('users create' makes the user) or POST /admin/projects/{project_id}/keys with a user_id.", "key_without_user"))
        : effect
    )
  )

const parseFields = (fields: Readonly<Record<string, string>>): Effect.Effect<FileFields, GatewayError> => {
  const purpose = fields["purpose"]
  if (purpose === undefined || purpose === "") return Effect.fail(GatewayError.invalid("Missing required parameter: 'purpose'.", "purpose"))
  if (!isPurpose(purpose)) {
    return Effect.fail(GatewayError.invalid(`Invalid 'purpose': '${purpose}'. Expected one of ${FilePurpose.literals.join(", ")}.`, "purpose"))
  }
  const anchor = fields["expires_after[anchor]"]
  const seconds = fields["expires_after[seconds]"]
  if (anchor !== undefined && anchor !== "created_at") {
    return Effect.fail(GatewayError.invalid(`Invalid 'expires_after[anchor]': only 'created_at' is supported.`, "expires_after[anchor]"))
  }
  if (seconds === undefined) {
    if (anchor !== undefined) return Effect.fail(GatewayError.invalid("'expires_after[seconds]' is required with 'expires_after[anchor]'.", "expires_after[seconds]"))
    return Effect.succeed({ purpose, expiresAfterSeconds: undefined })
  }
  const value = Number(seconds)
  if (!/^\d+$/.test(seconds.trim()) || value < minExpirySeconds || value > maxExpirySeconds) {
    return Effect.fail(
      GatewayError.invalid(`Invalid 'expires_after[seconds]': expected an integer from ${minExpirySeconds} to ${maxExpirySeconds}.`, "expires_after[seconds]")
    )
  }
  return Effect.succeed({ purpose, expiresAfterSeconds: value })
}

const tooLargeUpload = (maxBytes: number) =>
  GatewayError.tooLarge(`The file is larger than the ${Math.round(maxBytes / (1024 * 1024))} MB upload limit (${maxBytes} bytes).`, "file")


// Not priced, but counted against the caller's requests per minute like every endpoint.
const upload = withUser(rateLimitedOnly(
  Effect.gen(function* () {
    const principal = yield* CurrentPrincipal
    const service = yield* Files
    const maxBytes = (yield* GatewayConfigFile).config.files.max_upload_mb * 1024 * 1024
    const tooLarge = () => tooLargeUpload(maxBytes)
    let staged: StagedFile | undefined
    const form = readMultipartForm({
      fileField: "file",
      maxFileBytes: maxBytes,
      tooLarge,
      notMultipart: () => GatewayError.invalid("Uploads must be multipart/form-data with a 'file' and a 'purpose'.", "file"),
      onFile: (file) =>
        Effect.map(
          service.stage(principal, { filename: file.filename === "" ? "upload" : file.filename, contentType: file.contentType || "application/octet-stream" }, file.content),
          (stored) => {
            staged = stored
          }
        )
    })
    // Whatever goes wrong after the bytes were stored (a bad field, a disconnect) removes them.
    const committed = yield* Effect.gen(function* () {
      const { fields } = yield* form
      if (staged === undefined) return yield* GatewayError.invalid("Missing required parameter: 'file'.", "file")
      // A repeated field counts with its last value.
      const last: Record<string, string> = Object.create(null) as Record<string, string>
      for (const [name, values] of Object.entries(fields)) last[name] = values.at(-1)!
      const parsed = yield* parseFields(last)
      return yield* service.commit(principal, staged, parsed)
    }).pipe(Effect.onError(() => (staged === undefined ? Effect.void : service.discard(staged))))
    return HttpServerResponse.jsonUnsafe(committed)
  })
))

const listQuery = Schema.Struct({
  limit: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 10_000 }))),
  order: Schema.optionalKey(Schema.Literals(["asc", "desc"])),
  after: Schema.optionalKey(Schema.String),
  purpose: Schema.optionalKey(FilePurpose)
})

const list = withUser(
  Effect.gen(function* () {
    const principal = yield* CurrentPrincipal
    const query = yield* HttpServerRequest.schemaSearchParams(listQuery).pipe(
      Effect.mapError((error) => {
        const issue = String(error).split("\n").find((line) => line.includes("at [")) ?? ""
        const param = /at \["([^"]+)"\]/.exec(issue)?.[1] ?? "limit"
        return GatewayError.invalid(`Invalid query parameter '${param}'.`, param)
      })
    )
    const result = yield* (yield* Files).list(principal, {
      limit: query.limit ?? 10_000,
      order: query.order ?? "desc",
      after: query.after,
      purpose: query.purpose
    })
    return HttpServerResponse.jsonUnsafe({
      object: "list",
      data: result.data,
      has_more: result.hasMore,
      first_id: result.data[0]?.id ?? null,
      last_id: result.data.at(-1)?.id ?? null
    })
  })
)

const fileIdParam = Effect.map(HttpRouter.params, (params) => params["file_id"] ?? "")

const retrieve = withUser(
  Effect.gen(function* () {
    return HttpServerResponse.jsonUnsafe(yield* (yield* Files).get(yield* CurrentPrincipal, yield* fileIdParam))
  })
)

const content = withUser(
  Effect.gen(function* () {
    const { file, stream } = yield* (yield* Files).content(yield* CurrentPrincipal, yield* fileIdParam)
    const ascii = file.filename.replace(/[^\x20-\x7e]|["\\]/g, "_")
    return HttpServerResponse.stream(stream, {
      contentType: servedContentType(file.contentType),
      contentLength: file.bytes,
      headers: {
        "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
        ...downloadHeaders
      }
    })
  })
)

// Types a browser would run or render as a page (markup, scripts, styles) are sent as plain
// bytes: the stored type came from the uploader, and the gateway's origin must never serve
// their page. Everything else keeps its type; nothing is sniffed either way.
const token = /^[\w.+-]+\/[\w.+-]+$/
const withParameters = /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\u0000-\u001f]*"|[\w.+-]+))*$/
const activeType = /^(text\/(html|xml|javascript|ecmascript|css|xsl)|application\/(xhtml\+xml|xml|javascript|ecmascript|x-javascript|xslt\+xml)|image\/svg\+xml|multipart\/)|\+xml$/i

/** The Content-Type `/v1/files/{id}/content` answers with for a stored type. */
export const servedContentType = (stored: string): string => {
  const mediaType = stored.split(";", 1)[0]!.trim()
  if (activeType.test(mediaType) || !token.test(mediaType)) return "application/octet-stream"
  return withParameters.test(stored) ? stored : mediaType
}

const downloadHeaders = { "x-content-type-options": "nosniff", "content-security-policy": "default-src 'none'; sandbox" }

const remove = withUser(
  Effect.gen(function* () {
    return HttpServerResponse.jsonUnsafe(yield* (yield* Files).remove(yield* CurrentPrincipal, yield* fileIdParam))
  })
)

export const filesRoutes = [
  route("POST", "/v1/files", upload, files),
  route("GET", "/v1/files", list, files),
  route("GET", "/v1/files/:file_id", retrieve, files),
  route("DELETE", "/v1/files/:file_id", remove, files),
  route("GET", "/v1/files/:file_id/content", content, files)
]
