import { describe, expect, it } from "@effect/vitest"

interface Discovery {
  readonly billingEndpoints: (document: unknown) => ReadonlyArray<{
    readonly path: string
    readonly get: { readonly summary: string } | undefined
    readonly changes: ReadonlyArray<{ readonly method: string; readonly summary: string; readonly schema: unknown }>
  }>
  readonly formFields: (document: unknown, schema: unknown) => ReadonlyArray<{ readonly name: string; readonly type: string; readonly required: boolean }> | undefined
  readonly fillPath: (path: string, values: Record<string, string>) => string
}

// The console's browser module, plain JavaScript with no DOM use, loaded as the page loads it.
const discovery = (await import(new URL("../../console/js/discovery.js", import.meta.url).href)) as Discovery

const document = {
  paths: {
    "/admin/projects": { get: { summary: "List projects" } },
    "/admin/projects/{project_id}/keys": { get: {}, post: {} },
    "/admin/projects/{project_id}/usage/daily": { get: {} },
    "/admin/projects/{project_id}/regenerate": { post: {} },
    "/admin/projects/{project_id}/rate-limits": { get: { summary: "Rate limits" } },
    "/admin/projects/{project_id}/credit": {
      get: { summary: "A project's credit balance" },
      post: {
        summary: "Add credit",
        requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/AddCredit" } } } }
      }
    },
    "/admin/projects/{project_id}/limits": {
      get: { summary: "Limits" },
      put: { summary: "Set limits", requestBody: { content: { "application/json": { schema: { type: "object", properties: { nested: { type: "object" } } } } } } },
      delete: { summary: "Clear limits" }
    }
  },
  components: {
    schemas: {
      AddCredit: {
        type: "object",
        required: ["amount_usd"],
        properties: { amount_usd: { type: "number" }, note: { anyOf: [{ type: "string" }, { type: "null" }] } }
      }
    }
  }
}

describe("the console's discovery of credit and limit endpoints", () => {
  it("finds project-scoped credit and limit paths with their changes, and nothing else", () => {
    const found = discovery.billingEndpoints(document)
    expect(found.map((e) => e.path)).toEqual([
      "/admin/projects/{project_id}/rate-limits",
      "/admin/projects/{project_id}/credit",
      "/admin/projects/{project_id}/limits"
    ])
    expect(found[0]?.changes).toEqual([])
    expect(found[1]?.get?.summary).toBe("A project's credit balance")
    expect(found[1]?.changes.map((c) => c.method)).toEqual(["POST"])
    expect(found[2]?.changes.map((c) => c.method)).toEqual(["PUT", "DELETE"])
  })

  it("finds none in the admin API of a gateway without billing", () => {
    expect(discovery.billingEndpoints({ paths: { "/admin/projects/{project_id}/usage": { get: {} } } })).toEqual([])
  })

  it("builds form fields from a referenced schema, and asks for raw JSON for nested bodies", () => {
    const [, credit, limits] = discovery.billingEndpoints(document)
    expect(discovery.formFields(document, credit?.changes[0]?.schema)).toEqual([
      { name: "amount_usd", type: "number", required: true, enum: undefined, description: undefined },
      { name: "note", type: "string", required: false, enum: undefined, description: undefined }
    ])
    expect(discovery.formFields(document, limits?.changes[0]?.schema)).toBeUndefined()
    expect(discovery.fillPath("/admin/projects/{project_id}/credit", { project_id: "proj a/b" })).toBe("/admin/projects/proj%20a%2Fb/credit")
  })
})
