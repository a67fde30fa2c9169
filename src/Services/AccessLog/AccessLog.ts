import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AccessLogSettings } from "../../Domain/AccessLogSettings.ts"
import { accessLogMode } from "./AccessLogSettings.ts"
import { AccessLogWriter } from "./AccessLogWriter.ts"

/** The access log of this process: its mode (from `access_log.*`, ACCESS_LOG and LOG_LEVEL) and a writer to stdout. */
export const accessLogOf = (settings: AccessLogSettings, logLevel: string) =>
  Effect.map(Config.String("ACCESS_LOG").pipe(Config.option), (override) => ({
    mode: accessLogMode(settings, { ACCESS_LOG: Option.getOrUndefined(override), LOG_LEVEL: logLevel }, process.stdout.isTTY === true),
    writer: new AccessLogWriter((text) => process.stdout.write(text), { flushAtExit: 1 })
  }))
