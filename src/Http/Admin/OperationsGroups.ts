import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { ApiKey, KeyIdParams, ProjectIdParams, UsageQuery } from "./AdminSchemas.ts"
import {
  Deleted,
  KeyScopesBody,
  KeyUsageList,
  ProjectOverview,
  RequestLogEntry,
  RequestLogList,
  RequestLogQuery,
  RequestParams,
  RotatedKey,
  UserIdParams
} from "./OperationsSchemas.ts"

/** Admin endpoints behind the console's overview, request log, key changes and deletions. */

export const insightsGroup = HttpApiGroup.make("insights")
  .add(
    HttpApiEndpoint.get("getOverview", "/projects/:project_id/overview", { params: ProjectIdParams, success: ProjectOverview })
      .annotate(OpenApi.Summary, "A project at a glance: today and this month, top models, balance")
      .annotate(
        OpenApi.Description,
        "`today` and `month` (UTC) come from the usage ledger and count every metered request. `billing` is what credit and spend limits see: spend counters run only from when the project got a balance or a limit (`counting_since`)."
      ),
    HttpApiEndpoint.get("getKeyUsage", "/projects/:project_id/usage/keys", { params: ProjectIdParams, query: UsageQuery, success: KeyUsageList })
      .annotate(OpenApi.Summary, "Usage per API key")
      .annotate(OpenApi.Description, "Every live key of the project, and revoked keys that were used in the window, with requests, errors, tokens and cost. `from`/`to` as for the usage report (default: the last 30 days)."),
    HttpApiEndpoint.get("listRequests", "/projects/:project_id/requests", { params: ProjectIdParams, query: RequestLogQuery, success: RequestLogList })
      .annotate(OpenApi.Summary, "The request log")
      .annotate(
        OpenApi.Description,
        "A project's requests, newest first, from the usage ledger (written within `usage.flush_interval_ms` of a request's end). Filters: `key_id`, `model` (served or requested), `outcome` (`ok` or `error`), `code`; `limit` 1 to 500 (default 50); `before` (a row's `cursor`) pages on."
      ),
    HttpApiEndpoint.get("getRequest", "/projects/:project_id/requests/:request_id", { params: RequestParams, success: RequestLogEntry })
      .annotate(OpenApi.Summary, "One request's usage record, by its x-request-id")
  )
  .annotate(OpenApi.Description, "What a project's keys did: overview, per-key usage and the request log.")

export const operationsGroup = HttpApiGroup.make("operations")
  .add(
    HttpApiEndpoint.post("setKeyScopes", "/keys/:key_id/scopes", { params: KeyIdParams, payload: KeyScopesBody, success: ApiKey })
      .annotate(OpenApi.Summary, "Change an API key's scopes")
      .annotate(OpenApi.Description, "Replaces the scopes of a live key; every instance applies them within a second."),
    HttpApiEndpoint.post("rotateKey", "/keys/:key_id/rotate", { params: KeyIdParams, success: RotatedKey })
      .annotate(OpenApi.Summary, "Rotate an API key's secret")
      .annotate(
        OpenApi.Description,
        "A new secret for the same key: its id, scopes, limits and usage history stay. The old secret is refused at once. The new one is shown only in this response."
      ),
    HttpApiEndpoint.delete("deleteUser", "/users/:user_id", { params: UserIdParams, success: Deleted })
      .annotate(OpenApi.Summary, "Delete a user")
      .annotate(OpenApi.Description, "Revokes the user's keys and removes the user from its project; key records and usage stay."),
    HttpApiEndpoint.delete("deleteProject", "/projects/:project_id", { params: ProjectIdParams, success: Deleted })
      .annotate(OpenApi.Summary, "Delete a project")
      .annotate(
        OpenApi.Description,
        "Revokes every key of the project and removes it from the listings; its usage, credit ledger and key records stay for audit, and its id is never reused."
      )
  )
  .annotate(OpenApi.Description, "Changing and removing keys, users and projects.")
