/**
 * `input_video.url` (spec 2.2): only public links of the one video site Gemini reads directly, in
 * exactly four forms, normalised to the canonical watch URL. Parsing goes through the WHATWG URL
 * parser so look-alikes (`youtube.com.evil.io`, `www.youtube.com@evil.io`, `youtubee.com`,
 * plain `http:`) fail on the parsed host or scheme, never on a substring match.
 * @see https://ai.google.dev/gemini-api/docs/video-understanding#youtube
 */

const videoId = /^[A-Za-z0-9_-]{11}$/

const watchHosts: ReadonlySet<string> = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"])
const pageHosts: ReadonlySet<string> = new Set(["youtube.com", "www.youtube.com", "m.youtube.com"])

export const acceptedVideoLinkForms =
  "https://www.youtube.com/watch?v=ID, https://youtu.be/ID, https://www.youtube.com/embed/ID or https://www.youtube.com/shorts/ID"

const canonical = (id: string | undefined): string | undefined =>
  id !== undefined && videoId.test(id) ? `https://www.youtube.com/watch?v=${id}` : undefined

/** The canonical `https://www.youtube.com/watch?v=ID` for an accepted link, `undefined` for anything else. */
export const canonicalVideoUrl = (input: string): string | undefined => {
  let url: URL
  try {
    url = new URL(input.trim())
  } catch {
    return undefined
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "" || url.port !== "") return undefined
  const host = url.hostname
  const segments = url.pathname.split("/").slice(1)
  if (host === "youtu.be") return segments.length === 1 ? canonical(segments[0]) : undefined
  if (url.pathname === "/watch" && watchHosts.has(host)) {
    const ids = url.searchParams.getAll("v")
    return ids.length === 1 ? canonical(ids[0]) : undefined
  }
  if (pageHosts.has(host) && segments.length === 2 && (segments[0] === "embed" || segments[0] === "shorts")) {
    return canonical(segments[1])
  }
  return undefined
}
