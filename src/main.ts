// Module paths, not the package index: the index loads every Node integration (tens of MB).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import { GatewayLive } from "./AppLayer.ts"
import { LoggingLive, TracingLive } from "./Observability.ts"
import { AppConfig, formatConfigError } from "./Services/Config/AppConfig.ts"
import { GatewayConfigFile } from "./Services/Config/GatewayConfigLoader.ts"
import { logStartupSummary } from "./Services/Config/StartupSummary.ts"
import { ReloadSignalLive } from "./Services/Runtime/ReloadSignal.ts"

const MainLive = Layer.merge(GatewayLive, ReloadSignalLive).pipe(
  Layer.tap((context) => Effect.andThen(HttpServer.logAddress, logStartupSummary).pipe(Effect.provideContext(context))),
  Layer.provide(TracingLive),
  Layer.provide(LoggingLive),
  Layer.provideMerge(GatewayConfigFile.layer),
  Layer.provideMerge(AppConfig.layer)
)

// Some start-up errors (the server's ServeError) carry no message of their own, only a cause.
const describe = (error: unknown): string => {
  if (error instanceof Config.ConfigError) return formatConfigError(error)
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current.message.trim() !== "") return current.message
  }
  return error instanceof Error ? error.name : String(error)
}

// A configuration or storage problem stops start-up with one readable line, not a stack.
const program = Layer.launch(MainLive).pipe(
  Effect.catch((error) =>
    Effect.sync(() => {
      const line = describe(error).trim()
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
