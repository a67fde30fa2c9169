import type { RequestMeter } from "../Services/Usage/UsageMeter.ts"

// What the request's handler learnt, keyed by Node's request object (the platform request's
// `source`), which lives exactly as long as the request: no context entry, no fiber, and
// nothing at all when the access log is off.
export const keys = new WeakMap<object, { readonly keyId: string; readonly projectId: string }>()
export const meters = new WeakMap<object, RequestMeter>()
export const errors = new WeakMap<object, string>()
let active = false

/** Called once the access log is on: until then nothing is noted. */
export const activateNotes = (): void => {
  active = true
}

/** The key that authenticated the request (its id and its project's, never the secret). */
export const noteKey = (source: unknown, principal: { readonly keyId: string; readonly projectId: string }): void => {
  if (active && typeof source === "object" && source !== null) keys.set(source, principal)
}

/** The error code a request was answered with, when no usage meter records it (refused before one opened). */
export const noteError = (source: unknown, code: string): void => {
  if (active && typeof source === "object" && source !== null) errors.set(source, code)
}

/** The usage meter of a model request: model, provider, attempts, tokens, first-token time. */
export const noteMeter = (source: unknown, meter: RequestMeter): void => {
  if (active && typeof source === "object" && source !== null) meters.set(source, meter)
}

