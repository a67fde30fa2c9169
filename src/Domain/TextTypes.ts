/**
 * Text-based files the gateway reads as they are, by extension. The MIME type is what the
 * extracted document reports; anything not listed that still decodes as text is `text/plain`.
 */
const byExtension: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["text/plain", ["txt", "text", "log", "out", "nfo", "rst", "adoc", "asciidoc", "org", "tex", "bib", "srt", "diff", "patch"]],
  ["text/markdown", ["md", "markdown", "mdx", "mkd"]],
  ["text/csv", ["csv"]],
  ["text/tab-separated-values", ["tsv", "tab"]],
  ["text/html", ["html", "htm", "xhtml", "shtml"]],
  ["text/css", ["css", "scss", "sass", "less"]],
  ["text/vtt", ["vtt"]],
  ["text/calendar", ["ics"]],
  ["text/vcard", ["vcf"]],
  ["application/json", ["json", "jsonc", "json5", "geojson", "webmanifest", "ipynb"]],
  ["application/x-ndjson", ["jsonl", "ndjson"]],
  ["application/xml", ["xml", "xsd", "xsl", "xslt", "rss", "atom", "plist", "wsdl", "kml", "gpx", "xaml", "csproj", "resx"]],
  ["image/svg+xml", ["svg"]],
  ["application/yaml", ["yaml", "yml"]],
  ["application/toml", ["toml"]],
  ["application/graphql", ["graphql", "gql"]],
  ["text/x-protobuf", ["proto"]],
  ["application/sql", ["sql"]],
  ["text/javascript", ["js", "mjs", "cjs", "jsx"]],
  ["text/x-typescript", ["ts", "tsx", "mts", "cts"]],
  ["text/x-python", ["py", "pyi", "pyw"]],
  ["text/x-go", ["go", "mod"]],
  ["text/x-rust", ["rs"]],
  ["text/x-java", ["java"]],
  ["text/x-kotlin", ["kt", "kts"]],
  ["text/x-scala", ["scala", "sc"]],
  ["text/x-c", ["c", "h"]],
  ["text/x-c++", ["cc", "cpp", "cxx", "hh", "hpp", "hxx"]],
  ["text/x-csharp", ["cs", "csx"]],
  ["text/x-swift", ["swift"]],
  ["text/x-ruby", ["rb", "rake", "gemspec"]],
  ["text/x-php", ["php"]],
  ["text/x-perl", ["pl", "pm"]],
  ["text/x-lua", ["lua"]],
  ["text/x-r", ["r"]],
  ["text/x-shellscript", ["sh", "bash", "zsh", "fish", "ksh"]],
  ["text/x-powershell", ["ps1", "psm1"]],
  ["text/x-msdos-batch", ["bat", "cmd"]],
  [
    "text/x-source",
    ["dart", "ex", "exs", "erl", "hrl", "hs", "ml", "mli", "fs", "fsx", "clj", "cljs", "elm", "jl", "nim", "zig", "v", "sol", "vue", "svelte", "astro", "m", "mm", "groovy", "gradle", "tf", "hcl", "nix", "cmake", "mk", "dockerfile", "prisma", "thrift", "avsc", "asm", "s"]
  ],
  ["text/x-config", ["ini", "cfg", "conf", "config", "properties", "env", "editorconfig", "gitignore", "gitattributes", "dockerignore", "npmrc", "lock"]]
]

export const textMimeByExtension: ReadonlyMap<string, string> = new Map(
  byExtension.flatMap(([mime, extensions]) => extensions.map((ext) => [ext, mime] as const))
)

/** File names without an extension that are text by convention. */
export const textFileNames: ReadonlyMap<string, string> = new Map([
  ["dockerfile", "text/x-source"],
  ["makefile", "text/x-source"],
  ["readme", "text/plain"],
  ["license", "text/plain"],
  ["changelog", "text/plain"]
])

const textApplicationTypes = new Set([
  "application/json",
  "application/x-ndjson",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/graphql",
  "application/sql",
  "application/javascript",
  "application/typescript",
  "application/x-sh",
  "application/x-httpd-php",
  "application/x-protobuf-text",
  "image/svg+xml"
])

/** A declared MIME type that promises text: `text/*`, the structured formats, and `+json`/`+xml` types. */
export const isTextMime = (mime: string): boolean =>
  mime.startsWith("text/") || textApplicationTypes.has(mime) || mime.endsWith("+json") || mime.endsWith("+xml") || mime.endsWith("+yaml")
