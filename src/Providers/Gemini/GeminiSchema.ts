import { GatewayError } from "../../Domain/GatewayError.ts"
import { type GeminiSchema, type GeminiSchemaType, isRecord, type JsonRecord } from "./GeminiWire.ts"

/**
 * JSON Schema (tool `parameters`, `response_format.json_schema.schema`) -> the OpenAPI 3.0 subset
 * that Gemini's `Schema` object takes. Every keyword is either translated, or dropped because it
 * is a pure annotation that changes what is valid in no way, or refused with a 400 naming its
 * path: a constraint is never silently lost.
 * @see https://ai.google.dev/api/caching#Schema
 * @see https://ai.google.dev/gemini-api/docs/structured-output
 */

export interface SchemaOptions {
  /**
   * Adds `propertyOrdering` in declaration order. Gemini orders generated JSON keys
   * alphabetically unless told otherwise; JSON Schema authors expect their own order.
   */
  readonly propertyOrdering: boolean
}

/** Keywords that document a schema and constrain nothing (JSON Schema 2020-12 annotations). */
const annotations: ReadonlySet<string> = new Set(["$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly"])

const types: Readonly<Record<string, GeminiSchemaType>> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL"
}

/** Formats the Gemini API documents per type; others are annotations in JSON Schema 2020-12. */
const formats: Readonly<Partial<Record<GeminiSchemaType, ReadonlySet<string>>>> = {
  STRING: new Set(["enum", "date-time"]),
  NUMBER: new Set(["float", "double"]),
  INTEGER: new Set(["int32", "int64"])
}

const unsupported = (keyword: string, at: string, why = "is not supported by this model"): GatewayError =>
  GatewayError.invalid(`The JSON Schema keyword '${keyword}' at '${at}' ${why}.`, at, "unsupported_schema")

const count = (value: unknown, at: string): string => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw GatewayError.invalid(`'${at}' must be a non-negative integer.`, at)
  }
  // int64 fields travel as strings in proto3 JSON.
  return String(value)
}

const numberAt = (value: unknown, at: string): number => {
  if (typeof value !== "number" || !Number.isFinite(value)) throw GatewayError.invalid(`'${at}' must be a number.`, at)
  return value
}

const typeOf = (name: unknown, at: string): GeminiSchemaType => {
  const mapped = typeof name === "string" ? types[name] : undefined
  if (mapped === undefined) throw GatewayError.invalid(`'${at}' is not a JSON Schema type.`, at)
  return mapped
}

interface Context {
  readonly root: JsonRecord
  readonly rootPath: string
  readonly options: SchemaOptions
  /** `$ref` targets being expanded, to detect cycles. */
  readonly expanding: ReadonlyArray<string>
}

/** `#/$defs/Name` or `#/definitions/Name` against the root; anything else is refused. */
const resolveRef = (ref: unknown, at: string, ctx: Context): { readonly schema: unknown; readonly path: string } => {
  const match = typeof ref === "string" ? /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref) : null
  const container = match ? ctx.root[match[1]!] : undefined
  const name = match?.[2]?.replaceAll("~1", "/").replaceAll("~0", "~")
  if (match === null || name === undefined || !isRecord(container) || !(name in container)) {
    throw unsupported("$ref", at, `points to '${String(ref)}', which is not a definition under '$defs' of this schema`)
  }
  return { schema: container[name], path: `${ctx.rootPath}.${match[1]}.${name}` }
}

/** Folds a nullable-only union member (`{"type":"null"}`) into `nullable`. */
const isNullSchema = (value: unknown): boolean => isRecord(value) && value["type"] === "null" && Object.keys(value).length === 1

const enumValues = (values: unknown, at: string, out: GeminiSchema): void => {
  if (!Array.isArray(values) || values.length === 0) throw GatewayError.invalid(`'${at}' must be a non-empty array.`, at)
  const present = values.filter((v) => v !== null)
  if (present.length === 0) throw unsupported("enum", at, "allows only null")
  if (present.length < values.length) out.nullable = true
  if (present.every((v) => typeof v === "string")) {
    out.enum = present as Array<string>
  } else if (present.every((v) => typeof v === "number") && (out.type === "INTEGER" || out.type === "NUMBER")) {
    // Numeric enums are written as strings with format `enum`, as the Schema reference shows.
    out.enum = present.map(String)
    out.format = "enum"
  } else {
    throw unsupported("enum", at, "has values other than strings (or numbers of a numeric type)")
  }
}

const convert = (node: unknown, at: string, ctx: Context): GeminiSchema => {
  if (!isRecord(node)) {
    throw GatewayError.invalid(`'${at}' must be a JSON Schema object (boolean schemas cannot be expressed).`, at, "unsupported_schema")
  }
  if ("$ref" in node) return convertRef(node, at, ctx)
  if ("allOf" in node) return convertAllOf(node, at, ctx)

  const out: GeminiSchema = {}
  const rawType = node["type"]
  const typeNames = Array.isArray(rawType) ? rawType : rawType === undefined ? [] : [rawType]
  const nonNull = typeNames.filter((t) => t !== "null")
  if (nonNull.length < typeNames.length) out.nullable = true
  if (nonNull.length === 1) out.type = typeOf(nonNull[0], `${at}.type`)
  else if (nonNull.length === 0 && typeNames.length > 0) out.type = "NULL"
  else if (nonNull.length > 1) {
    const constraints = Object.keys(node).filter((k) => !["type", "title", "description", "default", ...annotations].includes(k))
    if (constraints.length > 0) throw unsupported("type", `${at}.type`, "lists several types next to other keywords")
    out.anyOf = nonNull.map((t, i) => ({ type: typeOf(t, `${at}.type[${i}]`) }))
  } else if ("properties" in node) out.type = "OBJECT"
  else if ("items" in node) out.type = "ARRAY"

  let extraDescription = ""
  for (const [key, value] of Object.entries(node)) {
    const here = `${at}.${key}`
    switch (key) {
      case "type":
      case "$defs":
      case "definitions":
        break
      case "title":
      case "description":
        if (typeof value !== "string") throw GatewayError.invalid(`'${here}' must be a string.`, here)
        out[key] = value
        break
      case "default":
        out.default = value
        break
      case "nullable":
        if (value === true) out.nullable = true
        break
      case "format":
        if (typeof value !== "string") throw GatewayError.invalid(`'${here}' must be a string.`, here)
        if (out.type !== undefined && formats[out.type]?.has(value) === true) out.format = value
        // Other formats annotate in JSON Schema 2020-12; the hint is kept for the model in words.
        else extraDescription = `(format: ${value})`
        break
      case "enum":
        enumValues(value, here, out)
        break
      case "const":
        enumValues([value], here, out)
        break
      case "properties": {
        if (!isRecord(value)) throw GatewayError.invalid(`'${here}' must be an object.`, here)
        const names = Object.keys(value)
        out.properties = Object.fromEntries(names.map((name) => [name, convert(value[name], `${here}.${name}`, ctx)]))
        if (ctx.options.propertyOrdering && names.length > 1) out.propertyOrdering = names
        break
      }
      case "required":
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
          throw GatewayError.invalid(`'${here}' must be an array of property names.`, here)
        }
        if (value.length > 0) out.required = value as Array<string>
        break
      case "additionalProperties":
        // Gemini generates only the declared properties of an OBJECT, so a closed object
        // (`false`, as strict schemas require) is already what it does; an open one is not.
        if (value !== false) throw unsupported(key, here, "allows undeclared properties, which this model cannot produce")
        break
      case "items":
        if (!isRecord(value)) throw unsupported(key, here, "must be a single schema (tuples are not supported)")
        out.items = convert(value, here, ctx)
        break
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
      case "minProperties":
      case "maxProperties":
        out[key] = count(value, here)
        break
      case "pattern":
        if (typeof value !== "string") throw GatewayError.invalid(`'${here}' must be a string.`, here)
        out.pattern = value
        break
      case "minimum":
      case "maximum":
        out[key] = numberAt(value, here)
        break
      case "exclusiveMinimum":
      case "exclusiveMaximum": {
        // Exact for integers only: x > 3 is x >= 4. For other numbers the bound cannot be kept.
        const bound = numberAt(value, here)
        if (out.type !== "INTEGER") throw unsupported(key, here, "is only supported on integers")
        if (key === "exclusiveMinimum") out.minimum = Math.floor(bound) + 1
        else out.maximum = Math.ceil(bound) - 1
        break
      }
      case "anyOf":
        convertAnyOf(value, here, ctx, out)
        break
      default:
        if (annotations.has(key)) break
        throw unsupported(key, here)
    }
  }
  if (extraDescription !== "") out.description = out.description === undefined ? extraDescription : `${out.description} ${extraDescription}`
  if (out.type === undefined && out.anyOf === undefined) {
    if (out.enum !== undefined) out.type = "STRING"
    else throw GatewayError.invalid(`The schema at '${at}' accepts any value; this model needs a 'type'.`, at, "unsupported_schema")
  }
  if (out.type === "OBJECT" && out.properties === undefined) {
    throw GatewayError.invalid(
      `The object schema at '${at}' declares no 'properties'; free-form objects are not supported by this model.`,
      at,
      "unsupported_schema"
    )
  }
  return out
}

const convertAnyOf = (value: unknown, at: string, ctx: Context, out: GeminiSchema): void => {
  if (!Array.isArray(value) || value.length === 0) throw GatewayError.invalid(`'${at}' must be a non-empty array.`, at)
  const members = value.filter((member) => !isNullSchema(member))
  if (members.length < value.length) out.nullable = true
  const converted = value.flatMap((member, i) => (isNullSchema(member) ? [] : [convert(member, `${at}[${i}]`, ctx)]))
  if (converted.length === 1 && out.type === undefined) Object.assign(out, { ...converted[0], ...withoutUndefined(out) })
  else out.anyOf = converted
}

const withoutUndefined = (schema: GeminiSchema): GeminiSchema =>
  Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined)) as GeminiSchema

/** Keywords that may sit next to `$ref` / inside a one-member `allOf` without changing meaning. */
const overlayKeys = ["title", "description", "default", "nullable"] as const

const overlay = (base: GeminiSchema, node: JsonRecord, at: string, skip: string): GeminiSchema => {
  const out: GeminiSchema = { ...base }
  for (const [key, value] of Object.entries(node)) {
    if (key === skip || annotations.has(key) || key === "$defs" || key === "definitions") continue
    if (!(overlayKeys as ReadonlyArray<string>).includes(key)) throw unsupported(key, `${at}.${key}`, `cannot be combined with '${skip}'`)
    if (key === "nullable") {
      if (value === true) out.nullable = true
    } else if (key === "default") out.default = value
    else if (typeof value === "string") out[key as "title" | "description"] = value
    else throw GatewayError.invalid(`'${at}.${key}' must be a string.`, `${at}.${key}`)
  }
  return out
}

const convertRef = (node: JsonRecord, at: string, ctx: Context): GeminiSchema => {
  const ref = node["$ref"]
  if (typeof ref === "string" && ctx.expanding.includes(ref)) {
    throw unsupported("$ref", `${at}.$ref`, `refers back to '${ref}'; recursive schemas are not supported by this model`)
  }
  const target = resolveRef(ref, `${at}.$ref`, ctx)
  const inlined = convert(target.schema, target.path, { ...ctx, expanding: [...ctx.expanding, ref as string] })
  return overlay(inlined, node, at, "$ref")
}

/** A one-member `allOf` (how many generators wrap a `$ref` to add a description) is inlined. */
const convertAllOf = (node: JsonRecord, at: string, ctx: Context): GeminiSchema => {
  const all = node["allOf"]
  if (!Array.isArray(all) || all.length !== 1) throw unsupported("allOf", `${at}.allOf`, "with more than one schema is not supported by this model")
  return overlay(convert(all[0], `${at}.allOf[0]`, ctx), node, at, "allOf")
}

/**
 * Converts one JSON Schema. `path` is the request path of the schema (for example
 * `tools[0].function.parameters`); every refusal names the offending keyword under it.
 * Throws a GatewayError (400) for anything the subset cannot express.
 */
export const geminiSchema = (schema: unknown, path: string, options: SchemaOptions): GeminiSchema => {
  if (!isRecord(schema)) throw GatewayError.invalid(`'${path}' must be a JSON Schema object.`, path)
  return convert(schema, path, { root: schema, rootPath: path, options, expanding: [] })
}
