import { readFileSync } from "node:fs"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import { parseDocument } from "yaml"
import { appSettingsConfig } from "../Services/Config/AppConfig.ts"
import { configReport } from "../Services/Config/ConfigReport.ts"
import { loadConfigFile, resolveConfigPath } from "../Services/Config/GatewayConfigLoader.ts"
import { probeDatabase, probeRedis } from "./DependencyProbe.ts"

/** A check that found errors (or warnings under --strict); its report is already printed. */
export class CheckFailed extends Error {}

/**
 * `admin check [--config file] [--strict]`: loads the configuration exactly as start-up does
 * (schema, unknown keys, cross-checks), reaches the database and Redis the environment names,
 * and prints what the gateway would serve. Exit 1 on an error; warnings (a provider without a
 * key, a model without prices or stated capabilities) fail only with --strict.
 */
export const checkCommand = Command.make(
  "check",
  {
    config: Flag.String("config").pipe(Flag.withDescription("Configuration file (default: GATEWAY_CONFIG, ./gateway.yaml, the shipped example)"), Flag.optional),
    strict: Flag.Boolean("strict").pipe(Flag.withDefault(false), Flag.withDescription("Fail on warnings too"))
  },
  (input) =>
    Effect.gen(function* () {
      const app = yield* appSettingsConfig
      const file = resolveConfigPath(Option.getOrUndefined(input.config) ?? app.configPath)
      const lines: Array<string> = [`config: ${file}`]
      const errors: Array<string> = []
      let warnings: ReadonlyArray<string> = []
      const loaded = yield* Effect.result(loadConfigFile(file, process.env))
      if (loaded._tag === "Failure") {
        errors.push(loaded.failure.message)
      } else {
        const raw: unknown = parseDocument(readFileSync(file, "utf8")).toJS()
        const report = configReport(loaded.success.config, raw, loaded.success.keyVariables ?? {})
        warnings = report.warnings
        lines.push("providers:")
        for (const p of report.providers) lines.push(`  ${p.id} (${p.kind}) ${p.baseUrl}; key: ${p.key}`)
        lines.push("models:")
        for (const m of report.models) lines.push(`  ${m.id} (${m.kind}) via ${m.routes}${m.priced ? "" : "; no prices"}`)
      }
      const probes = yield* Effect.all([probeDatabase(app), probeRedis(app)], { concurrency: 2 })
      for (const probe of probes) {
        lines.push(`${probe.name}: ${probe.detail}`)
        if (!probe.ok) errors.push(`${probe.name}: ${probe.detail}`)
      }
      lines.push(`admin API: ${app.adminToken === undefined ? "disabled (set GATEWAY_ADMIN_TOKEN to enable)" : "enabled"}`)
      for (const warning of warnings) lines.push(`warning: ${warning}`)
      for (const error of errors) lines.push(`error: ${error}`)
      const failed = errors.length > 0 || (input.strict && warnings.length > 0)
      lines.push(failed ? `not ok: ${errors.length} error(s), ${warnings.length} warning(s)` : `ok${warnings.length > 0 ? ` with ${warnings.length} warning(s)` : ""}`)
      yield* Console.log(lines.join("\n"))
      if (failed) return yield* Effect.fail(new CheckFailed(`the configuration check failed (${file})`))
    })
).pipe(Command.withDescription("Check a configuration file and the services it needs; print what would be served"))
