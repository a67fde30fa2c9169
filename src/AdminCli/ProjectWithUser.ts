import * as Effect from "effect/Effect"
import { Accounts } from "../Services/Accounts/Accounts.ts"

/** The name of the user `keys create --new-project` makes along with the project. */
export const defaultUserName = "default"

/**
 * A new project with one user, so the key made with it works on every endpoint, the files
 * endpoints included (they need a key that acts for a user).
 */
export const createProjectWithUser = (name: string) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const project = yield* accounts.createProject(name)
    const user = yield* accounts.createUser({ projectId: project.id, name: defaultUserName })
    return { project, user }
  })
