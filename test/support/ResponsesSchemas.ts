import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { referenceDir } from "./Fixtures.ts"
import { validateAgainst } from "./OpenApiValidator.ts"
import { validateStreamingEvent } from "./OpenResponsesSchema.ts"

type Schema = Record<string, any>

let byType: Map<string, string> | undefined

/** The reference document's Responses stream events, by their `type` (from `ResponseStreamEvent`'s members). */
const eventSchemas = (): Map<string, string> => {
  if (byType !== undefined) return byType
  const document = JSON.parse(readFileSync(NodePath.join(referenceDir, "openai-openapi.json"), "utf8")) as { components: { schemas: Record<string, Schema> } }
  const schemas = document.components.schemas
  const members = (schemas["ResponseStreamEvent"]!["anyOf"] ?? schemas["ResponseStreamEvent"]!["oneOf"]) as Array<Schema>
  byType = new Map()
  for (const member of members) {
    const name = String(member["$ref"]).replace("#/components/schemas/", "")
    for (const type of (schemas[name]?.["properties"]?.["type"]?.["enum"] ?? []) as Array<string>) byType.set(type, name)
  }
  return byType
}

/**
 * Errors of a Responses stream event against the schema of its own type in both published
 * documents, OpenAI's and the Open Responses specification's (empty when valid in both).
 */
export const validateStreamEvent = (event: { readonly type?: unknown }): Array<string> => {
  const name = eventSchemas().get(String(event.type))
  if (name === undefined) return [`no reference schema for the event type '${String(event.type)}'`]
  const openAi = validateAgainst(name, event).map((error) => `${String(event.type)} (${name}): ${error}`)
  return [...openAi, ...validateStreamingEvent(event).map((error) => `Open Responses: ${error}`)]
}
