import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import { adminRouteSignatures, AdminRoutesLive } from "./Http/AdminApi.ts"
import { HttpAppLive, NodeServerLive } from "./Http/HttpServerLayer.ts"
import { consoleRouteSignatures, ConsoleRoutesLive } from "./Http/Console/ConsoleRoutes.ts"
import { metricsRouteSignatures, MetricsRouteLive } from "./Http/MetricsRoute.ts"
import { GatewayMetrics } from "./Services/Metrics/GatewayMetrics.ts"
import { Accounts } from "./Services/Accounts/Accounts.ts"
import { ApiKeys } from "./Services/Accounts/ApiKeys.ts"
import { KeyRevocationsLive } from "./Services/Accounts/KeyRevocations.ts"
import { ConsoleSessionStore } from "./Services/Accounts/ConsoleSessionStore.ts"
import { FailedAuthThrottle } from "./Http/Admin/FailedAuthThrottle.ts"
import { Admission } from "./Services/Billing/Admission.ts"
import { BillingAdmin } from "./Services/Billing/BillingAdmin.ts"
import { BillingPolicyNoticesLive } from "./Services/Billing/BillingPolicyNotices.ts"
import { BillingReconcilerLive } from "./Services/Billing/BillingReconciler.ts"
import { ChatCompletions } from "./Services/Chat/ChatCompletions.ts"
import { Responses } from "./Services/Responses/Responses.ts"
import { ResponseStore } from "./Services/Responses/ResponseStore.ts"
import { Transcriptions } from "./Services/Audio/Transcriptions.ts"
import { DatabaseLive } from "./Services/Storage/Database.ts"
import { Decisions } from "./Services/Decisions/Decisions.ts"
import { DeploymentHealth } from "./Services/Routing/DeploymentHealth.ts"
import { DocumentResolver } from "./Services/Chat/DocumentResolver.ts"
import { Embeddings } from "./Services/Embeddings/Embeddings.ts"
import { Extractor } from "./Services/Files/Extractor.ts"
import { Files } from "./Services/Files/Files.ts"
import { ImageLinks } from "./Services/Images/ImageLinks.ts"
import { Images } from "./Services/Images/Images.ts"
import { FileStore } from "./Services/Files/FileStore.ts"
import { ModelCatalog } from "./Services/Catalog/ModelCatalog.ts"
import { NativeMemory } from "./Services/Runtime/NativeMemory.ts"
import { ProviderRegistry } from "./Services/Routing/ProviderRegistry.ts"
import { ProviderRouter } from "./Services/Routing/ProviderRouter.ts"
import { UrlFetcher } from "./Services/Fetch/UrlFetcher.ts"
import { UsageLedger } from "./Services/Usage/UsageLedger.ts"
import { WebTools } from "./Services/Tools/WebTools.ts"

/**
 * The whole service graph. This is the only module that knows every layer; `main.ts` adds
 * configuration, logging and tracing, and tests add their own configuration and database.
 */
// Revocations announced by any instance or the CLI reach this one's key cache at once.
const KeysLive = KeyRevocationsLive.pipe(Layer.provideMerge(ApiKeys.layer))

// Credit and limit changes made by any instance or the CLI reach this one's admission at once.
// Expired holds are settled from the usage ledger or released, on every instance.
const CoreLive = Layer.mergeAll(BillingAdmin.layer, BillingPolicyNoticesLive, BillingReconcilerLive).pipe(
  Layer.provideMerge(Admission.layer),
  Layer.provideMerge(Layer.mergeAll(KeysLive, ModelCatalog.layer, UsageLedger.layer, ConsoleSessionStore.layer, FailedAuthThrottle.layer)),
  Layer.provideMerge(Accounts.layer),
  Layer.provideMerge(DatabaseLive)
)

const RoutingLive = ProviderRouter.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(ProviderRegistry.layer, DeploymentHealth.layer))
)

// Files and documents: bytes in the FileStore, text from the Extractor, URLs through the guarded fetcher.
const DocumentsLive = DocumentResolver.layer.pipe(
  Layer.provideMerge(Files.layer),
  Layer.provideMerge(Layer.mergeAll(FileStore.layer, Extractor.layer, UrlFetcher.layer))
)

// Images: links to stored images, and the use case that makes them through the router.
const ImagesLive = Images.layer.pipe(Layer.provideMerge(ImageLinks.layer))

// Responses answers through the chat use case, with its own encoding.
const ChatLive = Responses.layer.pipe(Layer.provideMerge(Layer.merge(ChatCompletions.layer, ResponseStore.layer)))

export const ServicesLive = Layer.mergeAll(
  ChatLive,
  Embeddings.layer,
  Decisions.layer,
  WebTools.layer,
  ImagesLive,
  Transcriptions.layer
).pipe(
  Layer.provideMerge(Layer.mergeAll(RoutingLive, DocumentsLive)),
  Layer.provideMerge(CoreLive)
)

// The admin API and the console are registered only when GATEWAY_ADMIN_TOKEN is set.
// `/metrics` only when `metrics.enabled` is set.
export const GatewayLive = HttpAppLive(
  Layer.mergeAll(AdminRoutesLive, ConsoleRoutesLive, MetricsRouteLive),
  Effect.map(Effect.all([adminRouteSignatures, consoleRouteSignatures, metricsRouteSignatures]), (groups) => groups.flat())
).pipe(
  Layer.provideMerge(NodeServerLive),
  Layer.provideMerge(GatewayMetrics.layerObserving),
  Layer.provideMerge(Layer.merge(ServicesLive, NativeMemory.layer))
)

export const logAddress = HttpServer.logAddress
