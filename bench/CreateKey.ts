import { Effect, Layer } from "effect"
import { Accounts } from "../src/Services/Accounts/Accounts.ts"
import { ApiKeys } from "../src/Services/Accounts/ApiKeys.ts"
import { AppConfig } from "../src/Services/Config/AppConfig.ts"
import { DatabaseForCli } from "../src/Services/Storage/Database.ts"
import { decodeConfig, GatewayConfigFile } from "../src/Services/Config/GatewayConfigLoader.ts"

/**
 * Creates a project and an API key in the storage DATA_DIR (or DATABASE_URL) points at, before
 * the gateway starts, and prints `{"secret":"sk-..."}`. The same services the admin CLI uses,
 * without its command line.
 */
const ServicesLive = ApiKeys.layer.pipe(
  Layer.provideMerge(Accounts.layer),
  Layer.provide(DatabaseForCli),
  Layer.provide(Layer.unwrap(Effect.map(decodeConfig("<bench>", {}, {}), (config) => GatewayConfigFile.fromConfig(config)))),
  Layer.provide(AppConfig.layer)
)

const program = Effect.gen(function* () {
  const project = yield* (yield* Accounts).createProject("bench")
  const { secret } = yield* (yield* ApiKeys).create({ projectId: project.id, name: "bench" })
  process.stdout.write(`${JSON.stringify({ secret })}\n`)
})

await Effect.runPromise(program.pipe(Effect.provide(ServicesLive), Effect.scoped))
