import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { AdminAuth } from "./AdminAuth.ts"
import { AdminErrors } from "./AdminErrors.ts"
import { catalogueGroup, dailyUsageGroup, projectFilesGroup } from "./ConsoleGroups.ts"
import { billingGroup } from "./BillingApiGroup.ts"
import { insightsGroup, operationsGroup } from "./OperationsGroups.ts"
import {
  ApiKey,
  ApiKeyList,
  CreatedKey,
  CreateKeyBody,
  CreateProjectBody,
  CreateUserBody,
  KeyIdParams,
  Project,
  ProjectIdParams,
  ProjectList,
  StrictTranslationBody,
  UsageQuery,
  UsageReportBody,
  User,
  UserList
} from "./AdminSchemas.ts"

const projects = HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.post("createProject", "/projects", { payload: CreateProjectBody, success: Project }).annotate(
      OpenApi.Summary,
      "Create a project"
    ),
    HttpApiEndpoint.get("listProjects", "/projects", { success: ProjectList }).annotate(OpenApi.Summary, "List projects"),
    HttpApiEndpoint.get("getProject", "/projects/:project_id", { params: ProjectIdParams, success: Project }).annotate(
      OpenApi.Summary,
      "Retrieve a project"
    ),
    HttpApiEndpoint.post("setProjectStrict", "/projects/:project_id/strict-translation", {
      params: ProjectIdParams,
      payload: StrictTranslationBody,
      success: Project
    })
      .annotate(OpenApi.Summary, "Turn strict translation on or off for a project")
      .annotate(OpenApi.Description, "With it on, every key of the project is refused a request whose serving provider would drop a field.")
  )
  .annotate(OpenApi.Description, "Projects own keys, users, files and usage.")

const users = HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.post("createUser", "/projects/:project_id/users", {
      params: ProjectIdParams,
      payload: CreateUserBody,
      success: User
    }).annotate(OpenApi.Summary, "Create a user in a project"),
    HttpApiEndpoint.get("listUsers", "/projects/:project_id/users", { params: ProjectIdParams, success: UserList }).annotate(
      OpenApi.Summary,
      "List a project's users"
    )
  )
  .annotate(OpenApi.Description, "Users belong to one project; a key may act for a user.")

const keys = HttpApiGroup.make("keys")
  .add(
    HttpApiEndpoint.post("createKey", "/projects/:project_id/keys", {
      params: ProjectIdParams,
      payload: CreateKeyBody,
      success: CreatedKey
    })
      .annotate(OpenApi.Summary, "Create an API key")
      .annotate(
        OpenApi.Description,
        "Returns the key and its secret. The secret is shown only in this response; the gateway stores a hash."
      ),
    HttpApiEndpoint.get("listKeys", "/projects/:project_id/keys", { params: ProjectIdParams, success: ApiKeyList })
      .annotate(OpenApi.Summary, "List a project's API keys")
      .annotate(OpenApi.Description, "Never includes secrets or their hashes; `hint` is the last four characters."),
    HttpApiEndpoint.post("setKeyStrict", "/keys/:key_id/strict-translation", {
      params: KeyIdParams,
      payload: StrictTranslationBody,
      success: ApiKey
    }).annotate(OpenApi.Summary, "Turn strict translation on or off for an API key"),
    HttpApiEndpoint.post("revokeKey", "/keys/:key_id/revoke", { params: KeyIdParams, success: ApiKey }).annotate(
      OpenApi.Summary,
      "Revoke an API key"
    ),
    HttpApiEndpoint.delete("deleteKey", "/keys/:key_id", { params: KeyIdParams, success: ApiKey })
      .annotate(OpenApi.Summary, "Revoke an API key")
      .annotate(OpenApi.Description, "Same as POST /admin/keys/{key_id}/revoke; the key's record is kept for audit.")
  )
  .annotate(OpenApi.Description, "API keys for the /v1 endpoints.")

const usage = HttpApiGroup.make("usage")
  .add(
    HttpApiEndpoint.get("getUsage", "/projects/:project_id/usage", {
      params: ProjectIdParams,
      query: UsageQuery,
      success: UsageReportBody
    })
      .annotate(OpenApi.Summary, "Usage report for a project")
      .annotate(
        OpenApi.Description,
        "`from` and `to` are unix seconds, `from` inclusive and `to` exclusive; the default window is the last 30 days."
      )
  )
  .annotate(OpenApi.Description, "Metered requests, tokens and cost.")

/** The key-management API. Every endpoint is under `/admin` and needs the admin bearer token. */
export const AdminApi = HttpApi.make("admin")
  .add(projects, users, keys, usage, billingGroup)
  .add(dailyUsageGroup, projectFilesGroup, catalogueGroup)
  .add(insightsGroup, operationsGroup)
  .prefix("/admin")
  // The first middleware wraps innermost: the token is checked before errors are rendered.
  .middleware(AdminErrors)
  .middleware(AdminAuth)
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error" })
  .annotate(OpenApi.Title, "Model gateway admin API")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(
    OpenApi.Description,
    "Projects, users, API keys and usage. Authenticate with `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`. Errors use the gateway's envelope `{\"error\":{\"message\",\"type\",\"param\",\"code\"}}`."
  )
