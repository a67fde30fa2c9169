import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import { usageWindow } from "../Domain/UsageWindow.ts"
import { Accounts } from "../Services/Accounts/Accounts.ts"
import { ApiKeys } from "../Services/Accounts/ApiKeys.ts"
import { deleteProject, deleteUser } from "../Services/Accounts/Deletion.ts"
import { UsageLedger } from "../Services/Usage/UsageLedger.ts"
import { CliUsageError, nonEmpty, parseDuration, parseScopes, parseTime } from "./CliArgs.ts"
import { billingCommand } from "./BillingCommands.ts"
import { CliServicesLive } from "./CliServices.ts"
import * as Human from "./HumanOutput.ts"
import { createProjectWithUser } from "./ProjectWithUser.ts"
import { waitCommand } from "./WaitCommand.ts"
import { checkCommand } from "./CheckCommand.ts"

import { emit, Json } from "./CliOutput.ts"

export { Json } from "./CliOutput.ts"

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

const projectFlag = Flag.String("project").pipe(Flag.withAlias("p"), Flag.withDescription("Project id (proj_...)"))
const optionalString = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)
const orUndefined = <A>(option: Option.Option<A>): A | undefined => Option.getOrUndefined(option)

/** Every handler opens storage only when it runs, so `--help` never touches the database. */
const withServices = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, CliServicesLive)

const projectsCreate = Command.make("create", { name: Flag.String("name").pipe(Flag.withDescription("Project name")) }, (input) =>
  withServices(
    Effect.gen(function* () {
      const project = yield* (yield* Accounts).createProject(yield* nonEmpty("--name", input.name))
      yield* emit(project, Human.projectCreated)
    })
  )
).pipe(Command.withDescription("Create a project"))

const projectsList = Command.make("list", {}, () =>
  withServices(
    Effect.gen(function* () {
      const data = yield* (yield* Accounts).listProjects()
      yield* emit({ object: "list" as const, data }, (l) => Human.projectTable(l.data))
    })
  )
).pipe(Command.withDescription("List projects"))

const projectsDelete = Command.make("delete", { project: Argument.String("project_id").pipe(Argument.withDescription("Project id (proj_...)")) }, (input) =>
  withServices(Effect.flatMap(deleteProject(input.project), (deleted) => emit(deleted, Human.deleted)))
).pipe(Command.withDescription("Delete a project: its keys are revoked; usage and credit history stay"))

const projects = Command.make("projects").pipe(
  Command.withDescription("Create, list and delete projects"),
  Command.withSubcommands([projectsCreate, projectsList, projectsDelete])
)

const usersCreate = Command.make(
  "create",
  {
    project: projectFlag,
    name: Flag.String("name").pipe(Flag.withDescription("User name")),
    email: optionalString("email", "User email")
  },
  (input) =>
    withServices(
      Effect.gen(function* () {
        const user = yield* (yield* Accounts).createUser({
          projectId: input.project,
          name: yield* nonEmpty("--name", input.name),
          email: orUndefined(input.email)
        })
        yield* emit(user, Human.userCreated)
      })
    )
).pipe(Command.withDescription("Create a user in a project"))

const usersList = Command.make("list", { project: projectFlag }, (input) =>
  withServices(
    Effect.gen(function* () {
      const data = yield* (yield* Accounts).listUsers(input.project)
      yield* emit({ object: "list" as const, data }, (l) => Human.userTable(l.data))
    })
  )
).pipe(Command.withDescription("List a project's users"))

const usersDelete = Command.make("delete", { user: Argument.String("user_id").pipe(Argument.withDescription("User id (user_...)")) }, (input) =>
  withServices(Effect.flatMap(deleteUser(input.user), (deleted) => emit(deleted, Human.deleted)))
).pipe(Command.withDescription("Delete a user: its keys are revoked"))

const users = Command.make("users").pipe(
  Command.withDescription("Create, list and delete users"),
  Command.withSubcommands([usersCreate, usersList, usersDelete])
)

const keysCreate = Command.make(
  "create",
  {
    project: optionalString("project", "Project id (proj_...) the key belongs to").pipe(Flag.withAlias("p")),
    newProject: optionalString("new-project", "Create a project with this name and a key in it"),
    user: optionalString("user", "User id (user_...) the key acts for"),
    name: optionalString("name", "A label for the key"),
    scopes: optionalString("scopes", "Comma-separated scopes, e.g. chat,models (default: all)"),
    expiresIn: optionalString("expires-in", "Lifetime such as 12h, 30d or 2w (default: never expires)"),
    expiresAt: optionalString("expires-at", "Expiry as unix seconds or an ISO 8601 date"),
    secretOnly: Flag.Boolean("secret-only").pipe(Flag.withDefault(false), Flag.withDescription("Print only the secret (for KEY=$(...))"))
  },
  (input) =>
    Effect.gen(function* () {
      if (Option.isSome(input.project) === Option.isSome(input.newProject)) {
        return yield* new CliUsageError({ message: "give exactly one of --project <id> or --new-project <name>" })
      }
      if (Option.isSome(input.newProject) && Option.isSome(input.user)) {
        return yield* new CliUsageError({ message: "--user cannot be combined with --new-project: the new project's own user gets the key" })
      }
      if (Option.isSome(input.expiresIn) && Option.isSome(input.expiresAt)) {
        return yield* new CliUsageError({ message: "give at most one of --expires-in and --expires-at" })
      }
      const scopes = Option.isSome(input.scopes) ? yield* parseScopes(input.scopes.value) : undefined
      const now = yield* nowSeconds
      const expiresAt = Option.isSome(input.expiresIn)
        ? now + (yield* parseDuration("--expires-in", input.expiresIn.value))
        : Option.isSome(input.expiresAt)
          ? yield* parseTime("--expires-at", input.expiresAt.value)
          : undefined
      // Checked before anything is written, so a bad expiry never leaves a new project behind.
      if (expiresAt !== undefined && expiresAt <= now) {
        return yield* new CliUsageError({ message: `--expires-at must be in the future (got ${Human.time(expiresAt)})` })
      }
      const newProjectName = Option.isSome(input.newProject) ? yield* nonEmpty("--new-project", input.newProject.value) : undefined
      yield* withServices(
        Effect.gen(function* () {
          const keys = yield* ApiKeys
          const fresh = newProjectName === undefined ? undefined : yield* createProjectWithUser(newProjectName)
          const project = fresh?.project
          const created = yield* keys.create({
            projectId: project?.id ?? Option.getOrThrow(input.project),
            userId: fresh?.user.id ?? orUndefined(input.user),
            name: orUndefined(input.name),
            scopes,
            expiresAt
          })
          if (input.secretOnly) return yield* Console.log(created.secret)
          yield* emit(fresh === undefined ? created : { ...fresh, ...created }, (c) =>
            [...(fresh === undefined ? [] : [Human.projectCreated(fresh.project), Human.userCreated(fresh.user)]), Human.keyCreated(c.key, c.secret)].join("\n")
          )
        })
      )
    })
).pipe(Command.withDescription("Create an API key; its secret is printed once"))

const keysList = Command.make("list", { project: projectFlag }, (input) =>
  withServices(
    Effect.gen(function* () {
      const data = yield* (yield* ApiKeys).list(input.project)
      const now = yield* nowSeconds
      yield* emit({ object: "list" as const, data }, (l) => Human.keyTable(l.data, now))
    })
  )
).pipe(Command.withDescription("List a project's API keys (never their secrets)"))

const keysRevoke = Command.make("revoke", { key: Argument.String("key_id").pipe(Argument.withDescription("Key id (key_...)")) }, (input) =>
  withServices(
    Effect.gen(function* () {
      const key = yield* (yield* ApiKeys).revoke(input.key)
      yield* emit(key, Human.keyRevoked)
    })
  )
).pipe(Command.withDescription("Revoke an API key"))

const keyArgument = Argument.String("key_id").pipe(Argument.withDescription("Key id (key_...)"))

const keysScopes = Command.make("scopes", { key: keyArgument, scopes: Flag.String("scopes").pipe(Flag.withDescription("Comma-separated scopes, e.g. chat,embeddings")) }, (input) =>
  Effect.gen(function* () {
    const scopes = yield* parseScopes(input.scopes)
    yield* withServices(Effect.gen(function* () {
      const key = yield* (yield* ApiKeys).setScopes(input.key, scopes)
      yield* emit(key, Human.keyScopes)
    }))
  })
).pipe(Command.withDescription("Replace an API key's scopes"))

const keysRotate = Command.make(
  "rotate",
  { key: keyArgument, secretOnly: Flag.Boolean("secret-only").pipe(Flag.withDefault(false), Flag.withDescription("Print only the new secret")) },
  (input) =>
    withServices(
      Effect.gen(function* () {
        const rotated = yield* (yield* ApiKeys).rotate(input.key)
        if (input.secretOnly) return yield* Console.log(rotated.secret)
        yield* emit(rotated, (r) => Human.keyRotated(r.key, r.secret))
      })
    )
).pipe(Command.withDescription("Give an API key a new secret (printed once); the old secret stops working"))

const keys = Command.make("keys").pipe(
  Command.withDescription("Create, list, change, rotate and revoke API keys"),
  Command.withSubcommands([keysCreate, keysList, keysScopes, keysRotate, keysRevoke])
)

const usage = Command.make(
  "usage",
  {
    project: projectFlag,
    from: optionalString("from", "Start, unix seconds or ISO 8601 (default: 30 days before --to)"),
    to: optionalString("to", "End (exclusive), unix seconds or ISO 8601 (default: now)")
  },
  (input) =>
    Effect.gen(function* () {
      const from = Option.isSome(input.from) ? yield* parseTime("--from", input.from.value) : undefined
      const to = Option.isSome(input.to) ? yield* parseTime("--to", input.to.value) : undefined
      const window = yield* usageWindow(yield* Clock.currentTimeMillis, from, to)
      yield* withServices(
        Effect.gen(function* () {
          const projectSeq = yield* (yield* Accounts).projectSeq(input.project)
          const report = yield* (yield* UsageLedger).report({ projectId: input.project, projectSeq, ...window })
          yield* emit(report, Human.usageReport)
        })
      )
    })
).pipe(Command.withDescription("Usage report of a project"))

/** `admin <group> <command>`: key management against the gateway's database. */
export const adminCommand = Command.make("admin").pipe(
  Command.withDescription("Key-management console of the model gateway"),
  Command.withSubcommands([projects, users, keys, usage, billingCommand, waitCommand, checkCommand]),
  Command.withGlobalFlags([Json])
)
