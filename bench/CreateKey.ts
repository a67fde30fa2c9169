import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Accounts } from "../src/Services/Accounts/Accounts.ts"
import { ApiKeys } from "../src/Services/Accounts/ApiKeys.ts"
import { AppConfig } from "../src/Services/Config/AppConfig.ts"
import { setRateLimit } from "../src/Services/Billing/BillingAdminStore.ts"
import { credit } from "../src/Services/Billing/BillingStore.ts"
import { DatabaseForCli } from "../src/Services/Storage/Database.ts"
import { decodeConfig, GatewayConfigFile } from "../src/Services/Config/GatewayConfigLoader.ts"

/**
 * Creates three projects with an API key each in the storage DATA_DIR (or DATABASE_URL) points
 * at, before the gateway starts, and prints `{"secret","billedSecret","limitedSecret"}`: no credit
 * or limits; a credit balance of a billion dollars; per-key RPM and TPM limits it never reaches
 * (BilledTargets.ts). The same services the admin CLI uses, without its command line.
 */
const ServicesLive = ApiKeys.layer.pipe(
  Layer.provideMerge(Accounts.layer),
  Layer.provideMerge(DatabaseForCli),
  Layer.provide(Layer.unwrap(Effect.map(decodeConfig("<bench>", {}, {}), (config) => GatewayConfigFile.fromConfig(config)))),
  Layer.provide(AppConfig.layer)
)

const key = (name: string) =>
  Effect.gen(function* () {
    const project = yield* (yield* Accounts).createProject(name)
    const { key, secret } = yield* (yield* ApiKeys).create({ projectId: project.id, name })
    return { projectId: project.id, keyId: key.id, secret }
  })

const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const plain = yield* key("bench")
  const billed = yield* key("bench-billed")
  yield* credit(sql, { projectId: billed.projectId, amount: 10n ** 18n, kind: "grant", note: "bench", requestId: null })
  const limited = yield* key("bench-limited")
  yield* setRateLimit(sql, { projectId: limited.projectId, keyId: limited.keyId, model: "", rpm: 1_000_000_000, tpm: 2_000_000_000 })
  process.stdout.write(`${JSON.stringify({ secret: plain.secret, billedSecret: billed.secret, limitedSecret: limited.secret })}\n`)
})

await Effect.runPromise(program.pipe(Effect.provide(ServicesLive), Effect.scoped))
