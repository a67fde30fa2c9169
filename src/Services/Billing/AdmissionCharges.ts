import type { RateLimit } from "../../Domain/LimitSettings.ts"
import type { WindowCharge } from "../RateLimits/SlidingWindows.ts"
import type { Policies } from "./BillingPolicies.ts"

export interface Defaults {
  readonly key: RateLimit
  readonly project: RateLimit
}

const push = (charges: Array<WindowCharge>, id: string, rate: RateLimit | undefined, tokens: number) => {
  if (rate === undefined) return
  if (rate.rpm !== undefined) charges.push({ id: `${id}:r`, limit: rate.rpm, weight: 1 })
  if (rate.tpm !== undefined) charges.push({ id: `${id}:t`, limit: rate.tpm, weight: tokens })
}

/**
 * The windows a request is charged against: its key's RPM/TPM (its own, else the configured
 * default), its project's, and the project's limit for the model if one is set. Ids end in
 * `:r` (requests) or `:t` (tokens).
 */
export const chargesOf = (
  policies: Policies,
  defaults: Defaults,
  subject: { readonly projectId: string; readonly keyId: string; readonly model: string },
  tokens: number
): Array<WindowCharge> => {
  const charges: Array<WindowCharge> = []
  const project = policies.projects.get(subject.projectId)
  push(charges, `k:${subject.keyId}`, policies.keys.get(subject.keyId) ?? defaults.key, tokens)
  push(charges, `p:${subject.projectId}`, project?.rate ?? defaults.project, tokens)
  if (project !== undefined && project.models.size > 0) push(charges, `m:${subject.projectId}:${subject.model}`, project.models.get(subject.model), tokens)
  return charges
}

const limits = (rate: RateLimit | undefined): boolean => rate !== undefined && (rate.rpm !== undefined || rate.tpm !== undefined)

/** Whether any window applies to the caller, without building them (the no-limits fast path). */
export const hasRateLimits = (policies: Policies, defaults: Defaults, subject: { readonly projectId: string; readonly keyId: string }): boolean => {
  const project = policies.projects.get(subject.projectId)
  return limits(policies.keys.get(subject.keyId) ?? defaults.key) || limits(project?.rate ?? defaults.project) || (project !== undefined && project.models.size > 0)
}
