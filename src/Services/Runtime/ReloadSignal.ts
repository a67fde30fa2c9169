import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"

/**
 * SIGHUP does not stop the gateway (Node's default for it is to exit) and does not reload the
 * configuration: the catalogue, routes, prices and limits are read once at start-up, and
 * swapping them under requests in flight is not done. The signal is logged with what to do
 * instead: check the file, then restart (behind a load balancer, one instance at a time).
 */
export const ReloadSignalLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const { file } = yield* GatewayConfigFile
    const run = Effect.runForkWith(yield* Effect.context<never>())
    const message =
      `SIGHUP received: the configuration is not reloaded while the gateway runs; check ${file} with ` +
      "'npm run admin -- check', then restart the gateway to apply it"
    const onHangup = () => {
      run(Effect.logWarning(message))
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("SIGHUP", onHangup)),
      () => Effect.sync(() => process.off("SIGHUP", onHangup))
    )
  })
)
