/**
 * Lenient readers for provider answers: every field may be missing, null or of another type, and
 * the hot path reads parsed JSON directly instead of running a schema over it.
 */

export type JsonRecord = { readonly [key: string]: unknown }

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value)
export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
export const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined)
export const arr = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
export const rec = (value: unknown): JsonRecord => (isRecord(value) ? value : {})
