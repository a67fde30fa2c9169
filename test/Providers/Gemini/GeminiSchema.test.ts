import { describe, expect, it } from "@effect/vitest"
import { geminiSchema } from "../../../src/Providers/Gemini/GeminiSchema.ts"
import { refusal } from "./GeminiTestSupport.ts"

const path = "tools[0].function.parameters"
const convert = (schema: unknown, propertyOrdering = false) => geminiSchema(schema, path, { propertyOrdering })
const refused = (schema: unknown) => refusal(() => convert(schema))

describe("geminiSchema: translation", () => {
  it("maps types to upper case and keeps properties, required, descriptions and titles", () => {
    expect(
      convert({
        type: "object",
        title: "Weather",
        description: "Where to look",
        properties: { city: { type: "string", description: "City name" }, days: { type: "integer" }, metric: { type: "boolean" } },
        required: ["city"]
      })
    ).toEqual({
      type: "OBJECT",
      title: "Weather",
      description: "Where to look",
      properties: { city: { type: "STRING", description: "City name" }, days: { type: "INTEGER" }, metric: { type: "BOOLEAN" } },
      required: ["city"]
    })
  })

  it("adds propertyOrdering in declaration order only when asked (response schemas)", () => {
    const schema = { type: "object", properties: { b: { type: "string" }, a: { type: "number" } } }
    expect(convert(schema, true).propertyOrdering).toEqual(["b", "a"])
    expect(convert(schema, false).propertyOrdering).toBeUndefined()
  })

  it("keeps array, string, number and object bounds (int64 counts as strings)", () => {
    expect(
      convert({
        type: "object",
        properties: {
          tags: { type: "array", items: { type: "string", minLength: 1, maxLength: 20, pattern: "^[a-z]+$" }, minItems: 1, maxItems: 5 },
          score: { type: "number", minimum: 0, maximum: 1.5 },
          meta: { type: "object", properties: { k: { type: "string" } }, minProperties: 1, maxProperties: 3 }
        }
      })
    ).toEqual({
      type: "OBJECT",
      properties: {
        tags: { type: "ARRAY", items: { type: "STRING", minLength: "1", maxLength: "20", pattern: "^[a-z]+$" }, minItems: "1", maxItems: "5" },
        score: { type: "NUMBER", minimum: 0, maximum: 1.5 },
        meta: { type: "OBJECT", properties: { k: { type: "STRING" } }, minProperties: "1", maxProperties: "3" }
      }
    })
  })

  it("turns a type list with null (strict mode's optional fields) into nullable", () => {
    expect(convert({ type: "object", properties: { note: { type: ["string", "null"] } } }).properties!["note"]).toEqual({ type: "STRING", nullable: true })
  })

  it("turns anyOf with a null member into nullable, and keeps real unions as anyOf", () => {
    const schema = convert({
      type: "object",
      properties: {
        maybe: { anyOf: [{ type: "integer" }, { type: "null" }], description: "optional count" },
        either: { anyOf: [{ type: "string" }, { type: "number" }] }
      }
    })
    expect(schema.properties!["maybe"]).toEqual({ type: "INTEGER", nullable: true, description: "optional count" })
    expect(schema.properties!["either"]).toEqual({ anyOf: [{ type: "STRING" }, { type: "NUMBER" }] })
  })

  it("writes enums as strings; numeric enums with format enum; const as a one-value enum", () => {
    const schema = convert({
      type: "object",
      properties: {
        unit: { type: "string", enum: ["C", "F"] },
        level: { type: "integer", enum: [1, 2, 3] },
        kind: { const: "fixed" },
        maybeUnit: { type: ["string", "null"], enum: ["C", null] }
      }
    })
    expect(schema.properties).toEqual({
      unit: { type: "STRING", enum: ["C", "F"] },
      level: { type: "INTEGER", enum: ["1", "2", "3"], format: "enum" },
      kind: { type: "STRING", enum: ["fixed"] },
      maybeUnit: { type: "STRING", nullable: true, enum: ["C"] }
    })
  })

  it("keeps documented formats and moves other formats into the description", () => {
    const schema = convert({
      type: "object",
      properties: {
        at: { type: "string", format: "date-time" },
        ratio: { type: "number", format: "double" },
        mail: { type: "string", format: "email", description: "Contact" },
        id: { type: "string", format: "uuid" }
      }
    })
    expect(schema.properties).toEqual({
      at: { type: "STRING", format: "date-time" },
      ratio: { type: "NUMBER", format: "double" },
      mail: { type: "STRING", description: "Contact (format: email)" },
      id: { type: "STRING", description: "(format: uuid)" }
    })
  })

  it("drops additionalProperties: false, because Gemini objects hold only declared properties", () => {
    expect(convert({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false })).toEqual({
      type: "OBJECT",
      properties: { a: { type: "STRING" } }
    })
  })

  it("drops pure annotations", () => {
    expect(
      convert({ $schema: "https://json-schema.org/draft/2020-12/schema", $comment: "x", type: "string", examples: ["a"], deprecated: true })
    ).toEqual({ type: "STRING" })
  })

  it("keeps integer exclusive bounds exactly as inclusive ones", () => {
    expect(convert({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 })).toEqual({ type: "INTEGER", minimum: 1, maximum: 9 })
  })

  it("infers OBJECT and ARRAY from properties and items", () => {
    expect(convert({ properties: { a: { items: { type: "string" } } } })).toEqual({
      type: "OBJECT",
      properties: { a: { type: "ARRAY", items: { type: "STRING" } } }
    })
  })

  it("inlines acyclic $ref to $defs and definitions, keeping a sibling description", () => {
    expect(
      convert({
        type: "object",
        properties: { home: { $ref: "#/$defs/Address", description: "Home address" }, work: { $ref: "#/definitions/Address" } },
        $defs: { Address: { type: "object", properties: { street: { type: "string" } }, required: ["street"] } },
        definitions: { Address: { type: "object", properties: { street: { type: "string" } } } }
      })
    ).toEqual({
      type: "OBJECT",
      properties: {
        home: { type: "OBJECT", properties: { street: { type: "STRING" } }, required: ["street"], description: "Home address" },
        work: { type: "OBJECT", properties: { street: { type: "STRING" } } }
      }
    })
  })

  it("inlines a one-member allOf, as generators emit around a $ref", () => {
    expect(
      convert({
        type: "object",
        properties: { unit: { allOf: [{ $ref: "#/$defs/Unit" }], description: "Unit to use" } },
        $defs: { Unit: { type: "string", enum: ["C", "F"] } }
      }).properties!["unit"]
    ).toEqual({ type: "STRING", enum: ["C", "F"], description: "Unit to use" })
  })
})

describe("geminiSchema: refusals name the schema path", () => {
  const table: ReadonlyArray<readonly [string, unknown, string]> = [
    ["patternProperties", { type: "object", properties: { x: { type: "object", properties: { a: { type: "string" } }, patternProperties: { "^s_": { type: "string" } } } } }, `${path}.properties.x.patternProperties`],
    ["additionalProperties with a schema", { type: "object", properties: { x: { type: "string" } }, additionalProperties: { type: "string" } }, `${path}.additionalProperties`],
    ["additionalProperties: true", { type: "object", properties: { x: { type: "string" } }, additionalProperties: true }, `${path}.additionalProperties`],
    ["oneOf", { type: "object", properties: { x: { oneOf: [{ type: "string" }, { type: "integer" }] } } }, `${path}.properties.x.oneOf`],
    ["allOf with several members", { allOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: { b: { type: "string" } } }] }, `${path}.allOf`],
    ["not", { type: "object", properties: { x: { type: "string", not: { const: "a" } } } }, `${path}.properties.x.not`],
    ["if/then", { type: "object", properties: { x: { type: "string" } }, if: { properties: { x: { const: "a" } } } }, `${path}.if`],
    ["uniqueItems", { type: "array", items: { type: "string" }, uniqueItems: true }, `${path}.uniqueItems`],
    ["multipleOf", { type: "number", multipleOf: 0.5 }, `${path}.multipleOf`],
    ["tuple items", { type: "array", items: [{ type: "string" }, { type: "number" }] }, `${path}.items`],
    ["prefixItems", { type: "array", prefixItems: [{ type: "string" }] }, `${path}.prefixItems`],
    ["exclusiveMinimum on a number", { type: "number", exclusiveMinimum: 0 }, `${path}.exclusiveMinimum`],
    ["a recursive $ref", { type: "object", properties: { node: { $ref: "#/$defs/Node" } }, $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } } }, `${path}.$defs.Node.properties.next.$ref`],
    ["a $ref outside the schema", { type: "object", properties: { x: { $ref: "https://example.com/schema.json" } } }, `${path}.properties.x.$ref`],
    ["a $ref to a missing definition", { type: "object", properties: { x: { $ref: "#/$defs/Missing" } } }, `${path}.properties.x.$ref`],
    ["a $ref with a constraining sibling", { type: "object", properties: { x: { $ref: "#/$defs/S", minLength: 2 } }, $defs: { S: { type: "string" } } }, `${path}.properties.x.minLength`],
    ["a schema without type (any value)", { type: "object", properties: { x: { description: "anything" } } }, `${path}.properties.x`],
    ["a free-form nested object", { type: "object", properties: { x: { type: "object" } } }, `${path}.properties.x`],
    ["a boolean schema", { type: "object", properties: { x: true } }, `${path}.properties.x`],
    ["several types with constraints", { type: "object", properties: { x: { type: ["string", "number"], minLength: 1 } } }, `${path}.properties.x.type`],
    ["an enum of booleans", { type: "object", properties: { x: { enum: [true, false] } } }, `${path}.properties.x.enum`],
    ["an unknown type", { type: "object", properties: { x: { type: "date" } } }, `${path}.properties.x.type`],
    ["a negative minItems", { type: "array", items: { type: "string" }, minItems: -1 }, `${path}.minItems`],
    ["a keyword this gateway has never seen", { type: "object", properties: { x: { type: "string", "x-vendor": 1 } } }, `${path}.properties.x.x-vendor`]
  ]
  it.each(table)("refuses %s", (_, schema, param) => {
    const error = refused(schema)
    expect(error.tag).toBe("InvalidRequest")
    expect(error.param).toBe(param)
    expect(error.message).toContain(param)
  })
})
