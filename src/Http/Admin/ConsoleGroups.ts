import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { ProjectIdParams, UsageQuery } from "./AdminSchemas.ts"
import { AdminFileList, CatalogueList, DailyUsageBody, DeletedFile, FileListQuery, FileParams } from "./ConsoleSchemas.ts"

/** Admin endpoints behind the console's usage, files and models pages. */

export const dailyUsageGroup = HttpApiGroup.make("dailyUsage")
  .add(
    HttpApiEndpoint.get("getDailyUsage", "/projects/:project_id/usage/daily", {
      params: ProjectIdParams,
      query: UsageQuery,
      success: DailyUsageBody
    })
      .annotate(OpenApi.Summary, "Daily usage of a project, per model")
      .annotate(
        OpenApi.Description,
        "One row per UTC day and serving model with requests, tokens and cost. `from` and `to` are unix seconds, `from` inclusive and `to` exclusive; the default window is the last 30 days."
      )
  )
  .annotate(OpenApi.Description, "Usage by day, for charts and exports.")

export const projectFilesGroup = HttpApiGroup.make("projectFiles")
  .add(
    HttpApiEndpoint.get("listProjectFiles", "/projects/:project_id/files", {
      params: ProjectIdParams,
      query: FileListQuery,
      success: AdminFileList
    })
      .annotate(OpenApi.Summary, "List a project's files")
      .annotate(OpenApi.Description, "Newest first; `after` (a file id) pages on, `limit` is 1 to 1000 (default 100)."),
    HttpApiEndpoint.delete("deleteProjectFile", "/projects/:project_id/files/:file_id", {
      params: FileParams,
      success: DeletedFile
    }).annotate(OpenApi.Summary, "Delete a project's file (its record and its bytes)")
  )
  .annotate(OpenApi.Description, "Files uploaded with the project's keys.")

export const catalogueGroup = HttpApiGroup.make("catalogue")
  .add(
    HttpApiEndpoint.get("listCatalogue", "/models", { success: CatalogueList })
      .annotate(OpenApi.Summary, "The model catalogue")
      .annotate(OpenApi.Description, "Every configured model with its kind, capabilities, modalities and prices (USD; token prices per million tokens).")
  )
  .annotate(OpenApi.Description, "The models gateway.yaml configures.")
