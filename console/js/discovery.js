// Finds the admin API's credit, balance and limit endpoints in its OpenAPI document, so the
// console shows that page only on a gateway that has them. Pure: no DOM, testable in Node.

const covered = /^\/admin\/projects\/\{project_id\}\/(keys|users|usage|files)(\/|$)/
const billingWords = new Set(["credit", "credits", "balance", "balances", "limit", "limits", "ratelimit", "ratelimits", "budget", "budgets", "quota", "quotas", "spend", "spending", "billing"])
// Whole words of the path's segments, so `/regenerate` is no rate and `/rate-limits` is a limit.
const namesBilling = (path) => path.split("/").some((segment) => segment.split(/[-_.]/).some((word) => billingWords.has(word.toLowerCase())))

const resolve = (document, schema, depth = 0) => {
  if (schema === undefined || schema === null || depth > 8) return schema
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()
    return resolve(document, document.components?.schemas?.[name], depth + 1)
  }
  return schema
}

/** The simple fields of a JSON body schema, for a form; undefined when it needs raw JSON. */
export const formFields = (document, schema) => {
  const body = resolve(document, schema)
  if (body === undefined || body.type !== "object" || typeof body.properties !== "object") return undefined
  const required = new Set(body.required ?? [])
  const fields = []
  for (const [name, raw] of Object.entries(body.properties)) {
    const property = resolve(document, raw)
    const options = property?.anyOf ?? property?.oneOf
    const plain = options ? options.map((o) => resolve(document, o)).find((o) => o?.type !== "null") : property
    const type = plain?.type
    if (!["string", "number", "integer", "boolean"].includes(type)) return undefined
    fields.push({ name, type, required: required.has(name), enum: plain.enum, description: property?.description ?? plain.description })
  }
  return fields
}

/**
 * The project-scoped operations whose path names credit, balances or limits, grouped by path:
 * `{ path, get, changes: [{ method, summary, schema }] }`.
 */
export const billingEndpoints = (document) => {
  const found = []
  for (const [path, item] of Object.entries(document?.paths ?? {})) {
    if (!path.startsWith("/admin/projects/{project_id}/") || covered.test(path) || !namesBilling(path)) continue
    const changes = []
    for (const method of ["post", "put", "patch", "delete"]) {
      const operation = item[method]
      if (operation === undefined) continue
      const schema = operation.requestBody?.content?.["application/json"]?.schema
      changes.push({ method: method.toUpperCase(), summary: operation.summary ?? `${method.toUpperCase()} ${path}`, description: operation.description, schema })
    }
    found.push({ path, get: item.get === undefined ? undefined : { summary: item.get.summary ?? path }, changes })
  }
  return found
}

/** A path with `{project_id}` filled in; other parameters must be given. */
export const fillPath = (path, values) =>
  path.replace(/\{([^}]+)\}/g, (whole, name) => (values[name] === undefined ? whole : encodeURIComponent(values[name])))

/** Names of the path parameters other than the project. */
export const extraParameters = (path) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((n) => n !== "project_id")
