import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { ProjectView, UserView } from "../../Domain/ApiKey.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { storageGuard } from "../Storage/StorageGuard.ts"

interface ProjectRow {
  readonly id: string
  readonly name: string
  readonly created_at: number
  readonly strict_translation: boolean
}
interface UserRow {
  readonly id: string
  readonly project_id: string
  readonly name: string
  readonly email: string | null
  readonly created_at: number
}

const projectView = (row: ProjectRow): ProjectView => ({
  id: row.id,
  object: "project",
  name: row.name,
  created_at: Math.floor(row.created_at),
  strict_translation: row.strict_translation
})
const userView = (row: UserRow): UserView => ({
  id: row.id,
  object: "user",
  project_id: row.project_id,
  name: row.name,
  email: row.email,
  created_at: Math.floor(row.created_at)
})

/** Projects own keys, users, files and usage; users belong to one project. */
export class Accounts extends Context.Service<
  Accounts,
  {
    readonly createProject: (name: string, strictTranslation?: boolean) => Effect.Effect<ProjectView, GatewayError>
    readonly listProjects: () => Effect.Effect<ReadonlyArray<ProjectView>, GatewayError>
    readonly getProject: (id: string) => Effect.Effect<ProjectView, GatewayError>
    /** Strict translation for every key of the project (see the translation report). */
    readonly setProjectStrict: (id: string, strict: boolean) => Effect.Effect<ProjectView, GatewayError>
    readonly createUser: (input: {
      readonly projectId: string
      readonly name: string
      readonly email?: string | undefined
    }) => Effect.Effect<UserView, GatewayError>
    readonly listUsers: (projectId: string) => Effect.Effect<ReadonlyArray<UserView>, GatewayError>
    readonly getUser: (id: string) => Effect.Effect<UserView, GatewayError>
    /**
     * Removes a project from every listing and refuses its keys, users and files from then on;
     * its usage, credit ledger and key records stay for audit (revoke its keys first: ApiKeys.revokeAll).
     */
    readonly deleteProject: (id: string) => Effect.Effect<ProjectView, GatewayError>
    /** Removes a user from its project's listing (revoke its keys first); its keys' records stay. */
    readonly deleteUser: (id: string) => Effect.Effect<UserView, GatewayError>
    /** The compact numeric id the usage ledger keys on; internal, never part of a public view. */
    readonly projectSeq: (id: string) => Effect.Effect<number, GatewayError>
  }
>()("gateway/Accounts") {
  static readonly layer = Layer.effect(
    Accounts,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const guard = storageGuard((yield* GatewayConfigFile).config.resilience)

      const getProject = Effect.fn("Accounts.getProject")(function* (id: string) {
        const rows = yield* sql<ProjectRow>`SELECT id, name, extract(epoch from created_at)::float8 AS created_at, strict_translation
          FROM projects WHERE id = ${id} AND deleted_at IS NULL`.pipe(guard)
        const row = rows[0]
        if (row === undefined) return yield* GatewayError.notFound(`No such project: ${id}`, "project_id")
        return projectView(row)
      })

      const getUser = Effect.fn("Accounts.getUser")(function* (id: string) {
        const rows = yield* sql<UserRow>`SELECT id, project_id, name, email, extract(epoch from created_at)::float8 AS created_at
          FROM users WHERE id = ${id} AND deleted_at IS NULL`.pipe(guard)
        const row = rows[0]
        if (row === undefined) return yield* GatewayError.notFound(`No such user: ${id}`, "user_id")
        return userView(row)
      })

      return Accounts.of({
        createProject: Effect.fn("Accounts.createProject")(function* (name: string, strictTranslation?: boolean) {
          const rows = yield* sql<ProjectRow>`INSERT INTO projects (id, name, strict_translation)
            VALUES (${Ids.projectId()}, ${name}, ${strictTranslation === true})
            RETURNING id, name, extract(epoch from created_at)::float8 AS created_at, strict_translation`.pipe(guard)
          return projectView(rows[0]!)
        }),
        listProjects: Effect.fn("Accounts.listProjects")(function* () {
          const rows = yield* sql<ProjectRow>`SELECT id, name, extract(epoch from created_at)::float8 AS created_at, strict_translation
            FROM projects WHERE deleted_at IS NULL ORDER BY seq`.pipe(guard)
          return rows.map(projectView)
        }),
        getProject,
        setProjectStrict: Effect.fn("Accounts.setProjectStrict")(function* (id: string, strict: boolean) {
          const rows = yield* sql<ProjectRow>`UPDATE projects SET strict_translation = ${strict} WHERE id = ${id} AND deleted_at IS NULL
            RETURNING id, name, extract(epoch from created_at)::float8 AS created_at, strict_translation`.pipe(guard)
          const row = rows[0]
          if (row === undefined) return yield* GatewayError.notFound(`No such project: ${id}`, "project_id")
          return projectView(row)
        }),
        createUser: Effect.fn("Accounts.createUser")(function* (input) {
          yield* getProject(input.projectId)
          const rows = yield* sql<UserRow>`INSERT INTO users (id, project_id, name, email)
            VALUES (${Ids.userId()}, ${input.projectId}, ${input.name}, ${input.email ?? null})
            RETURNING id, project_id, name, email, extract(epoch from created_at)::float8 AS created_at`.pipe(guard)
          return userView(rows[0]!)
        }),
        listUsers: Effect.fn("Accounts.listUsers")(function* (projectId: string) {
          yield* getProject(projectId)
          const rows = yield* sql<UserRow>`SELECT id, project_id, name, email, extract(epoch from created_at)::float8 AS created_at
            FROM users WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(guard)
          return rows.map(userView)
        }),
        getUser,
        deleteProject: Effect.fn("Accounts.deleteProject")(function* (id: string) {
          const rows = yield* sql<ProjectRow>`UPDATE projects SET deleted_at = now() WHERE id = ${id} AND deleted_at IS NULL
            RETURNING id, name, extract(epoch from created_at)::float8 AS created_at, strict_translation`.pipe(guard)
          const row = rows[0]
          if (row === undefined) return yield* GatewayError.notFound(`No such project: ${id}`, "project_id")
          return projectView(row)
        }),
        deleteUser: Effect.fn("Accounts.deleteUser")(function* (id: string) {
          const rows = yield* sql<UserRow>`UPDATE users SET deleted_at = now() WHERE id = ${id} AND deleted_at IS NULL
            RETURNING id, project_id, name, email, extract(epoch from created_at)::float8 AS created_at`.pipe(guard)
          const row = rows[0]
          if (row === undefined) return yield* GatewayError.notFound(`No such user: ${id}`, "user_id")
          return userView(row)
        }),
        projectSeq: Effect.fn("Accounts.projectSeq")(function* (id: string) {
          const rows = yield* sql<{ readonly seq: number }>`SELECT seq FROM projects WHERE id = ${id} AND deleted_at IS NULL`.pipe(guard)
          const row = rows[0]
          if (row === undefined) return yield* GatewayError.notFound(`No such project: ${id}`, "project_id")
          return Number(row.seq)
        })
      })
    })
  )
}
