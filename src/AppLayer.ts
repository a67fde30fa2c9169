import { Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpAppLive, NodeServerLive } from "./Http/HttpServerLayer.ts"
import { Accounts } from "./Services/Accounts.ts"
import { ApiKeys } from "./Services/ApiKeys.ts"
import { DatabaseLive } from "./Services/Database.ts"
import { ModelCatalog } from "./Services/ModelCatalog.ts"
import { UsageLedger } from "./Services/UsageLedger.ts"

/**
 * The whole service graph. This is the only module that knows every layer; `main.ts` adds
 * configuration, logging and tracing, and tests add their own configuration and database.
 */
export const ServicesLive = Layer.mergeAll(ApiKeys.layer, ModelCatalog.layer, UsageLedger.layer).pipe(
  Layer.provideMerge(Accounts.layer),
  Layer.provideMerge(DatabaseLive)
)

export const GatewayLive = HttpAppLive(Layer.empty).pipe(
  Layer.provideMerge(NodeServerLive),
  Layer.provideMerge(ServicesLive)
)

export const logAddress = HttpServer.logAddress
