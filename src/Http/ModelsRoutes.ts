import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { unknownModel } from "../Domain/GatewayError.ts"
import { ModelCatalog } from "../Services/Catalog/ModelCatalog.ts"
import { authenticated } from "./Authentication.ts"
import { route } from "./Route.ts"

const list = authenticated(
  "models",
  Effect.map(ModelCatalog, (catalog) => HttpServerResponse.jsonUnsafe({ object: "list", data: catalog.list }))
)

// Model ids may contain "/" (org/model), so the id is the whole rest of the path.
const retrieve = authenticated(
  "models",
  Effect.gen(function* () {
    const params = yield* HttpRouter.params
    const raw = params["*"] ?? ""
    let id: string
    try {
      id = decodeURIComponent(raw)
    } catch {
      id = raw
    }
    const model = (yield* ModelCatalog).find(id)
    if (model === undefined) return yield* unknownModel(id)
    return HttpServerResponse.jsonUnsafe(model.entry)
  })
)

// The router registers "/v1/models/*" for "/v1/models" too; an empty rest means the list.
const listOrRetrieve = Effect.flatMap(HttpRouter.params, (params) => ((params["*"] ?? "") === "" ? list : retrieve))

export const modelsRoutes = [route("GET", "/v1/models/*", listOrRetrieve)]
