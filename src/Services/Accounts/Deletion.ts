import * as Effect from "effect/Effect"
import { Accounts } from "./Accounts.ts"
import { ApiKeys } from "./ApiKeys.ts"

/**
 * Deleting a user or a project, the same way from the admin API and the CLI: its keys are
 * revoked first (a failure in between leaves it without working keys, never the reverse), then
 * it leaves every listing and lookup; usage, credit ledger and key records stay.
 */
export const deleteUser = (userId: string) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const user = yield* accounts.getUser(userId)
    const revoked = yield* (yield* ApiKeys).revokeAll({ userId: user.id })
    yield* accounts.deleteUser(user.id)
    return { id: user.id, object: "user" as const, deleted: true as const, revoked_keys: revoked }
  })

export const deleteProject = (projectId: string) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const project = yield* accounts.getProject(projectId)
    const revoked = yield* (yield* ApiKeys).revokeAll({ projectId: project.id })
    yield* accounts.deleteProject(project.id)
    return { id: project.id, object: "project" as const, deleted: true as const, revoked_keys: revoked }
  })
