import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import { adminCommand } from "./AdminCli/AdminCommands.ts"
import { CliUsageError } from "./AdminCli/CliArgs.ts"
import { GatewayError } from "./Domain/GatewayError.ts"

/**
 * The key-management CLI: `node src/AdminCli.ts <group> <command> [flags]`, or
 * `npm run admin -- ...`. It talks to storage directly (DATABASE_URL, or the embedded
 * database in DATA_DIR, through a running gateway's socket when there is one).
 * Failures print one line on stderr: exit code 2 for a malformed command line, 1 otherwise.
 */

const usageExitCode = 2

const hint = (commandPath: ReadonlyArray<string>) => `run '${[...commandPath, "--help"].join(" ")}' for usage`

/** Parse errors as one line, instead of the full help followed by the errors. */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Console.error(`error: ${event.errors[0]?.message ?? "invalid command line"}; ${hint(event.commandPath)}`)
      : CliOutput.defaultPresenter.present(event)
}

const lineOf = (error: unknown): { readonly line: string; readonly code: number } => {
  if (error instanceof GatewayError) return { line: error.reason.message, code: 1 }
  if (CliError.isCliError(error)) return { line: error.message, code: usageExitCode }
  if (error instanceof CliUsageError) return { line: error.message, code: usageExitCode }
  return { line: error instanceof Error ? error.message : String(error), code: 1 }
}

const fail = (line: string, code: number) =>
  Effect.sync(() => {
    process.stderr.write(`error: ${line.split("\n", 1)[0]}\n`)
    process.exitCode = code
  })

const program = Command.run(adminCommand, { version: "0.1.0" }).pipe(
  Effect.catchCause((cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
    const failure = Cause.findErrorOption(cause)
    if (failure._tag === "Some") {
      const error = failure.value
      // Already printed by the presenter (parse errors) or help was shown for an incomplete command.
      if (CliError.isCliError(error) && error._tag === "ShowHelp") {
        return Effect.sync(() => {
          process.exitCode = usageExitCode
        })
      }
      const { line, code } = lineOf(error)
      return fail(line, code)
    }
    return fail(`unexpected failure: ${Cause.pretty(cause)}`, 1)
  }),
  Effect.provide(
    Layer.mergeAll(
      NodeServices.layer,
      CliOutput.layerPresenter(presenter),
      // Logs never mix with the output on stdout, and only problems are shown.
      Layer.succeed(Logger.LogToStderr, true),
      Layer.succeed(References.MinimumLogLevel, "Warn")
    )
  )
)

NodeRuntime.runMain(program, { disableErrorReporting: true })
