import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { FilePurpose, FileStatus, StoredFileRecord } from "../../Domain/StoredFile.ts"

export interface FileRow {
  readonly id: string
  readonly project_id: string
  readonly filename: string
  readonly purpose: FilePurpose
  readonly bytes: number
  readonly content_type: string
  readonly sha256: string
  readonly status: FileStatus
  readonly status_details: string | null
  readonly storage_key: string
  readonly created_at: number
  readonly expires_at: number | null
}

export const fromRow = (row: FileRow): StoredFileRecord => ({
  id: row.id,
  projectId: row.project_id,
  filename: row.filename,
  purpose: row.purpose,
  bytes: Number(row.bytes),
  contentType: row.content_type,
  sha256: row.sha256,
  status: row.status,
  statusDetails: row.status_details,
  storageKey: row.storage_key,
  createdAt: Math.floor(row.created_at),
  expiresAt: row.expires_at === null ? null : Math.floor(row.expires_at)
})

/** The list parameters of the common convention: newest first by default, `after` a file id. */
export interface ListQuery {
  readonly limit: number
  readonly order: "asc" | "desc"
  readonly after: string | undefined
  readonly purpose: FilePurpose | undefined
}

/** Keyset pagination on (created_at, id), so pages stay stable while files are added. */
export const listFiles = (
  sql: SqlClient.SqlClient,
  columns: Statement.Fragment,
  projectId: string,
  query: ListQuery,
  now: Date
) =>
  Effect.gen(function* () {
    const live = sql`project_id = ${projectId} AND (expires_at IS NULL OR expires_at > ${now})`
    let cursor = sql``
    if (query.after !== undefined) {
      const anchor = yield* sql<{ created_at: Date; id: string }>`SELECT created_at, id FROM files WHERE id = ${query.after} AND ${live}`
      if (anchor[0] === undefined) return yield* GatewayError.invalid(`No such File object: ${query.after}`, "after")
      cursor =
        query.order === "desc"
          ? sql`AND (created_at, id) < (${anchor[0].created_at}, ${anchor[0].id})`
          : sql`AND (created_at, id) > (${anchor[0].created_at}, ${anchor[0].id})`
    }
    const purpose = query.purpose === undefined ? sql`` : sql`AND purpose = ${query.purpose}`
    const order = query.order === "desc" ? sql`ORDER BY created_at DESC, id DESC` : sql`ORDER BY created_at ASC, id ASC`
    const rows = yield* sql<FileRow>`SELECT ${columns} FROM files WHERE ${live} ${cursor} ${purpose} ${order} LIMIT ${query.limit + 1}`
    return { rows: rows.slice(0, query.limit).map(fromRow), hasMore: rows.length > query.limit }
  })
