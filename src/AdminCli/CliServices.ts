import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Accounts } from "../Services/Accounts/Accounts.ts"
import { BillingAdmin } from "../Services/Billing/BillingAdmin.ts"
import { ApiKeys } from "../Services/Accounts/ApiKeys.ts"
import { AppConfig } from "../Services/Config/AppConfig.ts"
import { DatabaseForCli } from "../Services/Storage/Database.ts"
import { decodeConfig, GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { UsageLedger } from "../Services/Usage/UsageLedger.ts"

/**
 * The CLI needs none of gateway.yaml (providers, models), so it does not read it: a config
 * that names unset provider secrets must not stop key management. Retention is switched off
 * because pruning partitions is the gateway's job, with its configured retention, not the
 * defaults'.
 */
const CliConfigLive = Layer.unwrap(
  Effect.map(decodeConfig("<admin-cli>", { usage: { retention_days: 0 } }, {}), (config) =>
    GatewayConfigFile.fromConfig(config, "<admin-cli>")
  )
)

/**
 * Accounts, keys and the usage ledger over `DatabaseForCli`: a running embedded gateway's
 * socket, the data directory itself, or DATABASE_URL.
 */
export const CliServicesLive = Layer.mergeAll(ApiKeys.layer, UsageLedger.layer, BillingAdmin.layer).pipe(
  Layer.provideMerge(Accounts.layer),
  Layer.provide(DatabaseForCli),
  Layer.provide(CliConfigLive),
  Layer.provide(AppConfig.layer)
)
