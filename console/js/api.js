// Every call goes to the gateway's documented admin API (or the console's own session endpoint),
// authenticated by the HttpOnly session cookie; changes carry the CSRF token.
let csrfToken = null
let openApi = null

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`)
    this.status = status
    this.body = body
  }
}

export const api = async (method, path, body) => {
  const headers = { accept: "application/json" }
  if (body !== undefined) headers["content-type"] = "application/json"
  if (method !== "GET" && csrfToken !== null) headers["x-csrf-token"] = csrfToken
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let data
  try {
    data = text === "" ? undefined : JSON.parse(text)
  } catch {
    data = undefined
  }
  if (!response.ok) throw new ApiError(response.status, data)
  return data
}

export const session = {
  load: async () => {
    csrfToken = (await api("GET", "/console/session")).csrf_token
  },
  signIn: async (token) => {
    csrfToken = (await api("POST", "/console/session", { token })).csrf_token
  },
  signOut: async () => {
    await api("DELETE", "/console/session")
    csrfToken = null
    openApi = null
  },
  /** Ends every console session on the server, in every browser; this one too. */
  signOutEverywhere: async () => {
    await api("DELETE", "/console/sessions")
    csrfToken = null
    openApi = null
  }
}

/** The admin API's OpenAPI document, read once per sign-in. */
export const openApiDocument = async () => (openApi ??= await api("GET", "/admin/openapi.json"))

export const enc = encodeURIComponent
