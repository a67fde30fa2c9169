import { Arbitrary, Schema } from "effect"
import { ApiScope } from "../../src/Domain/ApiKey.ts"
import { FilePurpose } from "../../src/Domain/StoredFile.ts"

/**
 * Schemas from which the fuzz suite derives its requests (Effect's Arbitrary, which shrinks a
 * failing request to a small one). Each endpoint's body is loosely typed on purpose: every
 * field takes valid values and plausible wrong ones (any string, any number, any JSON), and a
 * `Mutation` then breaks the request as a hostile client would.
 */

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export const Json: Schema.Codec<Json> = Schema.Union([
  Schema.Null,
  Schema.Boolean,
  Schema.Finite,
  Schema.String,
  Schema.Array(Schema.suspend(() => Json)),
  Schema.Record(Schema.String, Schema.suspend(() => Json))
])

const opt = <S extends Schema.Top>(schema: S) => Schema.optionalKey(schema)
const Text = Schema.String
const Num = Schema.Union([Schema.Finite, Schema.Int, Schema.Literals([0, -1, 1e21, 2 ** 53 + 2, 1e-300])])

const ImageUrl = Schema.Union([
  Text,
  Schema.Literals(["data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,@@@###", "data:image/png,raw", "https://example.invalid/a.png", "DATA:;base64,"])
])

const Part = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Text }),
  Schema.Struct({ type: Schema.Literal("image_url"), image_url: Schema.Struct({ url: ImageUrl, detail: opt(Text) }) }),
  Schema.Struct({ type: Schema.Literal("input_audio"), input_audio: Schema.Struct({ data: Text, format: Schema.Literals(["wav", "mp3", "x"]) }) }),
  Schema.Struct({ type: Schema.Literal("file"), file: Schema.Struct({ file_id: opt(Text), file_data: opt(Text), filename: opt(Text) }) }),
  Schema.Struct({ type: Text, text: opt(Json) })
])

const Message = Schema.Struct({
  role: Schema.Union([Schema.Literals(["system", "developer", "user", "assistant", "tool"]), Text]),
  content: Schema.Union([Text, Schema.Array(Part), Schema.Null]),
  name: opt(Text),
  tool_call_id: opt(Text),
  tool_calls: opt(Schema.Array(Json))
})

export const ChatBody = Schema.Struct({
  model: Schema.Union([Schema.Literals(["gpt-test", "embed-test"]), Text]),
  messages: Schema.Array(Message),
  stream: opt(Schema.Boolean),
  stream_options: opt(Json),
  temperature: opt(Num),
  top_p: opt(Num),
  max_tokens: opt(Num),
  n: opt(Num),
  stop: opt(Schema.Union([Text, Schema.Array(Text)])),
  tools: opt(Schema.Array(Schema.Struct({ type: Schema.Literal("function"), function: Schema.Struct({ name: Text, parameters: opt(Json) }) }))),
  tool_choice: opt(Json),
  response_format: opt(Json),
  logprobs: opt(Schema.Boolean),
  top_logprobs: opt(Num),
  logit_bias: opt(Schema.Record(Text, Num)),
  metadata: opt(Schema.Record(Text, Text)),
  seed: opt(Num),
  user: opt(Text)
})

/** Requests that follow the spec, so that the fuzz reaches the upstream and back too. */
const Prompt = Schema.String.check(Schema.isNonEmpty())
const WellFormedChat = Schema.Struct({
  model: Schema.Literal("gpt-test"),
  messages: Schema.Array(
    Schema.Union([
      Schema.Struct({ role: Schema.Literals(["system", "user"]), content: Prompt }),
      Schema.Struct({ role: Schema.Literal("user"), content: Schema.Array(Schema.Struct({ type: Schema.Literal("text"), text: Prompt })).check(Schema.isMinLength(1)) })
    ])
  ).check(Schema.isMinLength(1), Schema.isMaxLength(4)),
  stream: opt(Schema.Boolean),
  temperature: opt(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 2 }))),
  max_tokens: opt(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 4096 }))),
  user: opt(Prompt)
})

/** Either a request that follows the spec or one of any shape. */
export const AnyChat = Schema.Union([WellFormedChat, ChatBody])

const WellFormedEmbedding = Schema.Struct({
  model: Schema.Literal("embed-test"),
  input: Schema.Union([Prompt, Schema.Array(Prompt).check(Schema.isMinLength(1), Schema.isMaxLength(8))]),
  encoding_format: opt(Schema.Literals(["float", "base64"]))
})

export const EmbeddingBody = Schema.Struct({
  model: Schema.Union([Schema.Literals(["embed-test", "gpt-test"]), Text]),
  input: Schema.Union([Text, Schema.Array(Text), Schema.Array(Schema.Int), Schema.Array(Schema.Array(Num)), Json]),
  encoding_format: opt(Schema.Union([Schema.Literals(["float", "base64"]), Text])),
  dimensions: opt(Num),
  user: opt(Text)
})

export const AnyEmbedding = Schema.Union([WellFormedEmbedding, EmbeddingBody])

/** A multipart upload: its fields in order, and whether and how the file is sent. */
const LooseUpload = Schema.Struct({
  purpose: opt(Schema.Union([FilePurpose, Text])),
  anchor: opt(Schema.Union([Schema.Literal("created_at"), Text])),
  seconds: opt(Schema.Union([Schema.Literals(["3600", "2592000", "3599", "-1", "1e5"]), Text])),
  filename: Text,
  field: Schema.Union([Schema.Literal("file"), Text]),
  files: Schema.Literals([0, 1, 2]),
  bytes: Schema.Uint8Array
})

const WellFormedUpload = Schema.Struct({
  purpose: FilePurpose,
  anchor: opt(Schema.Literal("created_at")),
  seconds: opt(Schema.Literals(["3600", "86400", "2592000"])),
  filename: Schema.Literals(["notes.txt", "report.md", "data.json", "image.png", "blob.bin", "résumé.txt"]),
  field: Schema.Literal("file"),
  files: Schema.Literal(1),
  bytes: Schema.Uint8Array
})

export const Upload = Schema.Union([WellFormedUpload, LooseUpload])

/** A path segment or query value: anything a client could type, escaped or not. */
export const UrlText = Schema.Union([Text, Schema.Literals(["%", "%zz", "%E0%A4%A", "%00", "a%0Ab", "..", "file-", "%2F%2E%2E", ""])])

export const FilesQuery = Schema.Struct({ limit: opt(UrlText), order: opt(UrlText), after: opt(UrlText), purpose: opt(UrlText) })

export const AdminCall = Schema.Union([
  Schema.Struct({ op: Schema.Literal("createProject"), body: Schema.Struct({ name: opt(Schema.Union([Text, Json])) }) }),
  Schema.Struct({ op: Schema.Literal("createUser"), project: Schema.Literals(["known", "unknown"]), body: Schema.Struct({ name: opt(Text), email: opt(Schema.Union([Text, Schema.Null])) }) }),
  Schema.Struct({
    op: Schema.Literal("createKey"),
    project: Schema.Literals(["known", "unknown"]),
    body: Schema.Struct({
      name: opt(Schema.Union([Text, Schema.Null])),
      user_id: opt(Schema.Union([Text, Schema.Null])),
      scopes: opt(Schema.Array(Schema.Union([ApiScope, Text]))),
      expires_at: opt(Schema.Union([Num, Schema.Null, Text]))
    })
  }),
  Schema.Struct({ op: Schema.Literal("usage"), project: Schema.Literals(["known", "unknown"]), from: opt(UrlText), to: opt(UrlText) }),
  Schema.Struct({ op: Schema.Literal("get"), path: Schema.Literals(["projects", "projects/{id}", "projects/{id}/users", "projects/{id}/keys"]), id: UrlText }),
  Schema.Struct({ op: Schema.Literal("revoke"), id: UrlText, method: Schema.Literals(["POST", "DELETE"]) })
])

/** How a JSON request is broken after it was generated, if at all. */
export const Mutation = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("none") }),
  Schema.Struct({ kind: Schema.Literal("set"), key: Text, value: Json }),
  Schema.Struct({ kind: Schema.Literal("drop"), key: Schema.Literals(["model", "messages", "input", "name"]) }),
  Schema.Struct({ kind: Schema.Literal("truncate"), at: Schema.Int }),
  Schema.Struct({ kind: Schema.Literal("nul"), key: Schema.Literals(["model", "user", "name", "input"]) }),
  Schema.Struct({ kind: Schema.Literal("body"), value: Json }),
  Schema.Struct({
    kind: Schema.Literal("raw"),
    text: Schema.Literals([
      "",
      "{",
      "[]",
      "null",
      '"text"',
      '{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"max_tokens":1e400}',
      '{"model":"gpt-test","messages":[{"role":"user","content":"\\ud800\\udc00\\ud800"}]}',
      '{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"metadata":' + "[".repeat(5000) + "]".repeat(5000) + "}",
      '{"__proto__":{"model":"gpt-test"},"constructor":{"prototype":{}}}',
      "\u00ff\u00fe{\u0000}"
    ])
  }),
  Schema.Struct({ kind: Schema.Literal("contentType"), value: Schema.Literals(["text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=latin1"]) })
])
export type Mutation = typeof Mutation.Type

/** Half the requests are sent as generated, the rest broken one way or another. */
export const MaybeMutation = Schema.Union([Schema.Struct({ kind: Schema.Literal("none") }), Mutation])

/** The JSON text and content type a mutated body is sent with. */
export const mutate = (body: Record<string, unknown>, mutation: Mutation): { readonly text: string; readonly contentType: string } => {
  const json = "application/json"
  switch (mutation.kind) {
    case "none":
      return { text: JSON.stringify(body), contentType: json }
    case "set":
      return { text: JSON.stringify({ ...body, [mutation.key]: mutation.value }), contentType: json }
    case "drop": {
      const { [mutation.key]: _, ...rest } = body
      return { text: JSON.stringify(rest), contentType: json }
    }
    case "truncate": {
      const text = JSON.stringify(body)
      return { text: text.slice(0, Math.abs(mutation.at) % Math.max(1, text.length)), contentType: json }
    }
    case "nul": {
      // Generated records may have no prototype, so the old value is written as JSON, not String()'d.
      const old = body[mutation.key]
      return { text: JSON.stringify({ ...body, [mutation.key]: `x\u0000${typeof old === "string" ? old : JSON.stringify(old) ?? ""}` }), contentType: json }
    }
    case "body":
      return { text: JSON.stringify(mutation.value), contentType: json }
    case "raw":
      return { text: mutation.text, contentType: json }
    case "contentType":
      return { text: JSON.stringify(body), contentType: mutation.value }
  }
}

export const arbitrary = <S extends Schema.Top>(schema: S) => Arbitrary.schema(schema)
