import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { type OutputUnit, Validator } from "@cfworker/json-schema"
import { fixturesDir } from "./Fixtures.ts"

/**
 * Validation against the Open Responses specification's published OpenAPI document
 * (test/fixtures/openresponses/openapi.json, see the README there): a response object against
 * `ResponseResource`, a stream event against the member of `POST /responses`'s
 * `text/event-stream` union its `type` selects. OpenAPI 3.1 schemas are JSON Schema 2020-12, so
 * a maintained validator reads them as they are.
 */

type Schema = Record<string, any>

interface Loaded {
  readonly components: Schema
  /** Event `type` -> the component schema of that event. */
  readonly events: ReadonlyMap<string, string>
  readonly validators: Map<string, Validator>
}

let loaded: Loaded | undefined

const load = (): Loaded => {
  if (loaded !== undefined) return loaded
  const document = JSON.parse(readFileSync(NodePath.join(fixturesDir, "openresponses", "openapi.json"), "utf8")) as Schema
  const schemas = document["components"]["schemas"] as Record<string, Schema>
  const union = document["paths"]["/responses"]["post"]["responses"]["200"]["content"]["text/event-stream"]["schema"]["oneOf"] as Array<Schema>
  const events = new Map<string, string>()
  for (const member of union) {
    const name = String(member["$ref"]).replace("#/components/schemas/", "")
    for (const type of (schemas[name]?.["properties"]?.["type"]?.["enum"] ?? []) as Array<string>) events.set(type, name)
  }
  loaded = { components: document["components"], events, validators: new Map() }
  return loaded
}

const describe = (error: OutputUnit): string => `${error.instanceLocation}: ${error.error}`

/** Errors of `value` against the named component schema (empty when valid). */
export const validateOpenResponses = (name: string, value: unknown): Array<string> => {
  const { components, validators } = load()
  let validator = validators.get(name)
  if (validator === undefined) {
    validator = new Validator({ $ref: `#/components/schemas/${name}`, components }, "2020-12", false)
    validators.set(name, validator)
  }
  const result = validator.validate(value)
  // The leaves say what is wrong; the "does not match" of every enclosing schema only repeats it.
  if (result.valid) return []
  const leaves = result.errors.filter((e) => e.keyword !== "$ref" && e.keyword !== "allOf" && e.keyword !== "properties")
  return (leaves.length > 0 ? leaves : result.errors).map(describe)
}

/** Errors of a response object against `ResponseResource`. */
export const validateResponseResource = (value: unknown): Array<string> => validateOpenResponses("ResponseResource", value)

/** Errors of a stream event against the schema of its own type in the published event union. */
export const validateStreamingEvent = (event: { readonly type?: unknown; readonly [key: string]: unknown }): Array<string> => {
  const name = load().events.get(String(event.type))
  if (name === undefined) return [`the event type '${String(event.type)}' is not in the published stream event union`]
  return validateOpenResponses(name, event).map((error) => `${String(event.type)} (${name}) ${error}`)
}

/** The event types of the published union (a check that the document was read, not an empty map). */
export const streamingEventTypes = (): ReadonlyArray<string> => [...load().events.keys()]
