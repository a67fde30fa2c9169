/**
 * The ISO 639-1 codes (the two-letter set, as registered; `sh` and the other withdrawn codes
 * are left out) that `language` may take, and the lower-case English name OpenAI's
 * `verbose_json` reports a language by ("english", "german").
 */
const codes =
  "aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu " +
  "fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km " +
  "kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om " +
  "or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr " +
  "ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"

export const iso6391Codes: ReadonlySet<string> = new Set(codes.split(" "))

const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" })

/** Whether `code` is an ISO 639-1 code; case matters as in the standard (lower case). */
export const isLanguageCode = (code: string): boolean => iso6391Codes.has(code)

/** "de" -> "german"; a code without an English name stays as it is. */
export const languageName = (code: string): string => (names.of(code) ?? code).toLowerCase()

/** A language a provider reported, by code or name, as OpenAI's lower-case English name. */
export const normaliseLanguage = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (trimmed === "") return undefined
  const lower = trimmed.toLowerCase()
  return iso6391Codes.has(lower) ? languageName(lower) : lower
}
