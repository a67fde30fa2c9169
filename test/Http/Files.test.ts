import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI, { toFile } from "openai"
import { fixturesDir } from "../support/Fixtures.ts"
import { openAiClient } from "../support/OpenAiClient.ts"
import { useGateway } from "../support/UseGateway.ts"

const fixture = (path: string) => readFileSync(NodePath.join(fixturesDir, path))

const waitFor = async <A>(probe: () => Promise<A>, done: (a: A) => boolean, ms = 20_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (done(value) || Date.now() > until) return value
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("files API", () => {
  const gw = useGateway({ config: { files: { max_upload_mb: 1 } }, key: { withUser: true } })
  let alice: OpenAI
  let aliceKey: string
  let other: OpenAI
  let noUserKey: string

  beforeAll(async () => {
    aliceKey = gw.key.secret
    alice = openAiClient(gw.url, aliceKey)
    other = openAiClient(gw.url, (await gw.createKey({ withUser: true })).secret)
    noUserKey = (await gw.createKey()).secret
  })

  it("uploads with files.create(toFile), then lists, retrieves, streams and deletes", async () => {
    const bytes = fixture("documents/report.pdf")
    const created = await alice.files.create({ file: await toFile(bytes, "report.pdf", { type: "application/pdf" }), purpose: "user_data" })
    expect(created).toMatchObject({ object: "file", bytes: bytes.length, filename: "report.pdf", purpose: "user_data", status: "uploaded" })
    expect(created.id).toMatch(/^file-/)
    expect(created.expires_at).toBeUndefined()

    const processed = await waitFor(() => alice.files.retrieve(created.id), (f) => f.status !== "uploaded")
    expect(processed.status).toBe("processed")

    const page = await alice.files.list()
    expect(page.data.map((f) => f.id)).toContain(created.id)

    const content = await alice.files.content(created.id)
    expect(content.headers.get("content-type")).toBe("application/pdf")
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).toBe(true)

    const deleted = await alice.files.delete(created.id)
    expect(deleted).toEqual({ id: created.id, object: "file", deleted: true })
    await expect(alice.files.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it("marks a file it cannot read as error, with the reason on the File object", async () => {
    const created = await alice.files.create({ file: await toFile(fixture("bad/truncated.pdf"), "truncated.pdf"), purpose: "assistants" })
    const file = (await waitFor(() => alice.files.retrieve(created.id), (f) => f.status !== "uploaded")) as unknown as Record<string, unknown>
    expect(file["status"]).toBe("error")
    expect(String(file["status_details"])).toContain("truncated.pdf")
  })

  it("sets expires_at from expires_after", async () => {
    const created = await alice.files.create({
      file: await toFile(fixture("documents/notes.txt"), "notes.txt"),
      purpose: "user_data",
      expires_after: { anchor: "created_at", seconds: 3600 }
    })
    expect(created.expires_at).toBe(created.created_at + 3600)
  })

  it("keeps files inside their project: another project sees 404 No such File object", async () => {
    const created = await alice.files.create({ file: await toFile(fixture("documents/readme.md"), "readme.md"), purpose: "user_data" })
    const error = (await other.files.retrieve(created.id).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>
    expect(error.status).toBe(404)
    expect(error.message).toContain(`No such File object: ${created.id}`)
    expect((error.error as Record<string, unknown>)["type"]).toBe("invalid_request_error")
    expect((await other.files.list()).data.map((f) => f.id)).not.toContain(created.id)
    await expect(other.files.delete(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it("403 for a key without a user, typed invalid_request_error", async () => {
    const res = await fetch(`${gw.url}/v1/files`, { headers: { authorization: `Bearer ${noUserKey}` } })
    expect(res.status).toBe(403)
    expect(((await res.json()) as any).error.type).toBe("invalid_request_error")
  })

  it("400 for bad form fields, naming them", async () => {
    const form = (fields: Record<string, string>, file = true) => {
      const data = new FormData()
      if (file) data.append("file", new Blob([Buffer.from("hello")]), "a.txt")
      for (const [k, v] of Object.entries(fields)) data.append(k, v)
      return fetch(`${gw.url}/v1/files`, { method: "POST", headers: { authorization: `Bearer ${aliceKey}` }, body: data })
    }
    const cases: Array<[Response, string]> = [
      [await form({}), "purpose"],
      [await form({ purpose: "homework" }), "purpose"],
      [await form({ purpose: "user_data", "expires_after[anchor]": "created_at", "expires_after[seconds]": "60" }), "expires_after[seconds]"],
      [await form({ purpose: "user_data", "expires_after[anchor]": "last_active_at", "expires_after[seconds]": "3600" }), "expires_after[anchor]"],
      [await form({ purpose: "user_data" }, false), "file"]
    ]
    for (const [res, param] of cases) {
      expect(res.status).toBe(400)
      const body = (await res.json()) as any
      expect(body.error.type).toBe("invalid_request_error")
      expect(body.error.param).toBe(param)
    }
    // Nothing half-made remains: none of the refused uploads shows up.
    expect((await alice.files.list()).data.every((f) => f.filename !== "a.txt")).toBe(true)
  })

  it("413 above the upload limit, and nothing is left behind", async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 7)
    const error = (await alice.files.create({ file: await toFile(big, "big.bin"), purpose: "user_data" }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.APIError
    >
    expect(error.status).toBe(413)
    expect((error.error as Record<string, unknown>)["type"]).toBe("invalid_request_error")
    expect((await alice.files.list()).data.every((f) => f.filename !== "big.bin")).toBe(true)
  })

  it("lists with limit, after, order and purpose", async () => {
    const fresh = openAiClient(gw.url, (await gw.createKey({ withUser: true })).secret)
    const ids: Array<string> = []
    for (const name of ["a.txt", "b.txt", "c.txt"]) {
      ids.push((await fresh.files.create({ file: await toFile(Buffer.from(name), name), purpose: name === "b.txt" ? "vision" : "user_data" })).id)
    }
    const firstPage = await fresh.files.list({ limit: 2 })
    expect(firstPage.data.map((f) => f.id)).toEqual([ids[2], ids[1]])
    expect(firstPage.has_more).toBe(true)
    const rest = await fresh.files.list({ limit: 2, after: ids[1]! })
    expect(rest.data.map((f) => f.id)).toEqual([ids[0]])
    expect((await fresh.files.list({ order: "asc" })).data.map((f) => f.id)).toEqual(ids)
    expect((await fresh.files.list({ purpose: "vision" })).data.map((f) => f.id)).toEqual([ids[1]])
    const bad = await fetch(`${gw.url}/v1/files?limit=0`, { headers: { authorization: `Bearer ${aliceKey}` } })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).error.param).toBe("limit")
  })
})
