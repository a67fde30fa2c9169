import type { AccessLogSettings } from "../../Domain/AccessLogSettings.ts"

export type AccessLogFormat = "json" | "text"

/** What the access log does in this process: off, or a format and the level of a normal line. */
export type AccessLogMode =
  | { readonly enabled: false }
  | { readonly enabled: true; readonly format: AccessLogFormat; readonly level: "DEBUG" | "INFO" | "WARN"; readonly errorsOnly: boolean }

const rank: Record<string, number> = { trace: 0, debug: 1, info: 2, warn: 3, warning: 3, error: 4, fatal: 5, none: 6 }

/**
 * `ACCESS_LOG` (`off`, `json`, `text`, `auto`) wins over `access_log.*`, so a benchmark or a
 * one-off run can switch it without editing the file. A line is written when LOG_LEVEL lets
 * its level through; a server error's line is `error`, so LOG_LEVEL=error keeps only those.
 */
export const accessLogMode = (
  settings: AccessLogSettings,
  env: { readonly ACCESS_LOG?: string | undefined; readonly LOG_LEVEL?: string | undefined },
  stdoutIsTty: boolean
): AccessLogMode => {
  const override = env.ACCESS_LOG?.trim().toLowerCase()
  if (override === "off" || override === "false" || override === "0") return { enabled: false }
  const enabled = override === "json" || override === "text" || override === "auto" || override === "on" ? true : settings.enabled
  if (!enabled) return { enabled: false }
  const wanted = override === "json" || override === "text" ? override : settings.format
  const format: AccessLogFormat = wanted === "auto" ? (stdoutIsTty ? "text" : "json") : wanted
  const minimum = rank[(env.LOG_LEVEL ?? "info").toLowerCase()] ?? rank["info"]!
  if (minimum > rank["error"]!) return { enabled: false }
  const level = settings.level === "debug" ? "DEBUG" : settings.level === "warn" ? "WARN" : "INFO"
  return { enabled: true, format, level, errorsOnly: rank[settings.level]! < minimum }
}
