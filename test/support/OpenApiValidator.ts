import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { referenceDir } from "./Fixtures.ts"

/**
 * Validates values against schemas of the reference OpenAPI document
 * (`test/reference/openai-openapi.json`; see the README there for its origin).
 * Covers the OpenAPI 3 subset those schemas use: $ref, type, nullable, enum, properties,
 * required, items, anyOf, oneOf, allOf, additionalProperties.
 */
type Schema = Record<string, unknown>

const documentPath = NodePath.join(referenceDir, "openai-openapi.json")
let document: { components: { schemas: Record<string, Schema> } } | undefined
const load = () => (document ??= JSON.parse(readFileSync(documentPath, "utf8")))

const resolve = (schema: Schema): Schema => {
  const ref = schema["$ref"]
  if (typeof ref !== "string") return schema
  const name = ref.replace("#/components/schemas/", "")
  const target = load().components.schemas[name]
  if (target === undefined) throw new Error(`unknown schema ${ref}`)
  return resolve(target)
}

const typeOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value

const matchesType = (expected: string, value: unknown): boolean => {
  const actual = typeOf(value)
  return expected === actual || (expected === "number" && actual === "integer")
}

export const validate = (schemaIn: Schema, value: unknown, path = "$"): Array<string> => {
  const schema = resolve(schemaIn)
  const errors: Array<string> = []
  // A `$ref` may carry `nullable` beside it (the description's `usage` of a stream chunk does).
  if (value === null && schemaIn["nullable"] === true) return errors
  if (value === null && (schema["nullable"] === true || (Array.isArray(schema["type"]) && schema["type"].includes("null")))) return errors
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key]
    if (Array.isArray(options)) {
      const ok = options.some((option) => validate(option as Schema, value, path).length === 0)
      if (!ok) errors.push(`${path}: matches none of ${key}`)
      return errors
    }
  }
  if (Array.isArray(schema["allOf"])) {
    for (const part of schema["allOf"]) errors.push(...validate(part as Schema, value, path))
  }
  const type = schema["type"]
  if (typeof type === "string" && !matchesType(type, value)) {
    errors.push(`${path}: expected ${type}, got ${typeOf(value)}`)
    return errors
  }
  if (Array.isArray(type) && !type.some((t) => matchesType(String(t), value))) {
    errors.push(`${path}: expected one of ${type.join("|")}, got ${typeOf(value)}`)
    return errors
  }
  if (Array.isArray(schema["enum"]) && !schema["enum"].includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`)
  if (typeOf(value) === "object") {
    const record = value as Record<string, unknown>
    for (const name of (schema["required"] as Array<string> | undefined) ?? []) {
      if (!(name in record)) errors.push(`${path}.${name}: required`)
    }
    const properties = (schema["properties"] as Record<string, Schema> | undefined) ?? {}
    for (const [name, item] of Object.entries(record)) {
      const property = properties[name]
      if (property !== undefined) errors.push(...validate(property, item, `${path}.${name}`))
      else if (schema["additionalProperties"] === false) errors.push(`${path}.${name}: not allowed`)
    }
  }
  if (Array.isArray(value) && schema["items"] !== undefined) {
    value.forEach((item, i) => errors.push(...validate(schema["items"] as Schema, item, `${path}[${i}]`)))
  }
  return errors
}

/** Errors of `value` against the named component schema (empty when valid). */
export const validateAgainst = (name: string, value: unknown): Array<string> => validate({ $ref: `#/components/schemas/${name}` }, value)
