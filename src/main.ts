// Module paths, not the package index: the index loads every Node integration (tens of MB).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, Effect, Exit, Layer } from "effect"
import { HttpServer } from "effect/http"
import { GatewayLive } from "./AppLayer.ts"
import { LoggingLive, TracingLive } from "./Observability.ts"
import { AppConfig, formatConfigError } from "./Services/AppConfig.ts"
import { GatewayConfigFile } from "./Services/GatewayConfigLoader.ts"

const MainLive = GatewayLive.pipe(
  Layer.tap((context) => HttpServer.logAddress.pipe(Effect.provideContext(context))),
  Layer.provide(TracingLive),
  Layer.provide(LoggingLive),
  Layer.provideMerge(GatewayConfigFile.layer),
  Layer.provideMerge(AppConfig.layer)
)

// A configuration or storage problem stops start-up with one readable line, not a stack.
const program = Layer.launch(MainLive).pipe(
  Effect.catch((error) =>
    Effect.sync(() => {
      const line =
        error instanceof Config.ConfigError ? formatConfigError(error) : error instanceof Error ? error.message : String(error)
      process.stderr.write(`gateway: ${line.split("\n")[0]}\n`)
      process.exitCode = 1
    })
  )
)

// A stop by SIGTERM/SIGINT that drained cleanly is a success (exit 0), not an interruption (130).
NodeRuntime.runMain(program, {
  teardown: (exit, onExit) =>
    onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? Number(process.exitCode ?? 0) : 1)
})
