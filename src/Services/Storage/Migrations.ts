import * as Migrator from "effect/sql/Migrator"
import accounts from "./migrations/0001_accounts.ts"
import usageEvents from "./migrations/0002_usage_events.ts"
import extractionCache from "./migrations/0003_extraction_cache.ts"
import deploymentHealth from "./migrations/0004_deployment_health.ts"
import files from "./migrations/0005_files.ts"
import usageLedgerSafety from "./migrations/0006_usage_ledger_safety.ts"
import generatedImages from "./migrations/0008_generated_images.ts"
import billing from "./migrations/0009_billing.ts"
import rateWindows from "./migrations/0010_rate_windows.ts"
import consoleSessions from "./migrations/0012_console_sessions.ts"
import strictTranslation from "./migrations/0013_strict_translation.ts"
import storedResponses from "./migrations/0015_stored_responses.ts"
import settlementReconciliation from "./migrations/0016_settlement_reconciliation.ts"
import consoleOperations from "./migrations/0018_console_operations.ts"
import settlementBatches from "./migrations/0019_settlement_batches.ts"

/** One migration set for every storage backend; ids are the numeric prefixes. */
export const migrations = Migrator.fromRecord({
  "0001_accounts": accounts,
  "0002_usage_events": usageEvents,
  "0003_extraction_cache": extractionCache,
  "0004_deployment_health": deploymentHealth,
  "0005_files": files,
  "0006_usage_ledger_safety": usageLedgerSafety,
  "0008_generated_images": generatedImages,
  "0009_billing": billing,
  "0010_rate_windows": rateWindows,
  "0012_console_sessions": consoleSessions,
  "0013_strict_translation": strictTranslation,
  "0015_stored_responses": storedResponses,
  "0016_settlement_reconciliation": settlementReconciliation,
  "0018_console_operations": consoleOperations,
  "0019_settlement_batches": settlementBatches
})

export const runMigrations = Migrator.make({})({ loader: migrations, table: "gateway_migrations" })
