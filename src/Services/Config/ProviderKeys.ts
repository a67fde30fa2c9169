import * as Redacted from "effect/Redacted"
import type { GatewayConfig, ProviderConfig } from "../../Domain/GatewayConfig.ts"
import { firstReference } from "./Interpolation.ts"


/**
 * Provider id -> the environment variable its `api_key` reads (`${OPENAI_API_KEY:-}`), from the
 * document before interpolation, so an error can tell which variable to set.
 */
export const keyVariables = (raw: unknown): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  const providers = raw !== null && typeof raw === "object" ? (raw as { readonly providers?: unknown }).providers : undefined
  if (!Array.isArray(providers)) return out
  for (const provider of providers as ReadonlyArray<unknown>) {
    if (provider === null || typeof provider !== "object") continue
    const { id, api_key } = provider as { readonly id?: unknown; readonly api_key?: unknown }
    const name = typeof api_key === "string" ? firstReference(api_key)?.name : undefined
    if (typeof id === "string" && name !== undefined) out[id] = name
  }
  return out
}

/** A provider whose `api_key` is written but came out empty (an unset `${VAR:-}`). */
export const lacksKey = (provider: ProviderConfig): boolean =>
  provider.api_key !== undefined && Redacted.value(provider.api_key).trim() === ""

/** How to give the provider its key, for messages: the variable, else the config field. */
export const keyHint = (providerId: string, variables: Readonly<Record<string, string>>, index?: number): string => {
  const variable = variables[providerId]
  return variable !== undefined
    ? `set the environment variable ${variable}`
    : `set providers${index === undefined ? "[]" : `[${index}]`}.api_key of '${providerId}' in the configuration`
}

/** Ids of the configured providers that have no key. */
export const keylessProviders = (config: GatewayConfig): ReadonlySet<string> =>
  new Set(config.providers.filter(lacksKey).map((p) => p.id))
