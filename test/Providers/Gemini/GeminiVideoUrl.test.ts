import { describe, expect, it } from "@effect/vitest"
import { canonicalVideoUrl } from "../../../src/Providers/Gemini/GeminiVideoUrl.ts"

const id = "dQw4w9WgXcQ"
const canonical = `https://www.youtube.com/watch?v=${id}`

describe("canonicalVideoUrl", () => {
  const accepted: ReadonlyArray<readonly [string, string]> = [
    ["watch page", `https://www.youtube.com/watch?v=${id}`],
    ["watch page without www", `https://youtube.com/watch?v=${id}`],
    ["mobile watch page", `https://m.youtube.com/watch?v=${id}`],
    ["music watch page", `https://music.youtube.com/watch?v=${id}`],
    ["watch page with more parameters", `https://www.youtube.com/watch?feature=share&v=${id}&t=42s`],
    ["watch page with a fragment", `https://www.youtube.com/watch?v=${id}#t=10`],
    ["upper-case scheme and host", `HTTPS://WWW.YOUTUBE.COM/watch?v=${id}`],
    ["explicit default port", `https://www.youtube.com:443/watch?v=${id}`],
    ["surrounding whitespace", `  https://www.youtube.com/watch?v=${id}  `],
    ["short link", `https://youtu.be/${id}`],
    ["short link with share parameters", `https://youtu.be/${id}?si=AbCdEf123&t=5`],
    ["embed page", `https://www.youtube.com/embed/${id}`],
    ["embed page with player parameters", `https://www.youtube.com/embed/${id}?start=30&autoplay=1`],
    ["shorts page", `https://www.youtube.com/shorts/${id}`],
    ["shorts page without www", `https://youtube.com/shorts/${id}`],
    ["id with dash and underscore", "https://youtu.be/a-B_c-D_e-F"]
  ]
  it.each(accepted)("accepts the %s", (_, input) => {
    const expected = input.includes("a-B_c-D_e-F") ? "https://www.youtube.com/watch?v=a-B_c-D_e-F" : canonical
    expect(canonicalVideoUrl(input)).toBe(expected)
  })

  const refused: ReadonlyArray<readonly [string, string]> = [
    ["plain http", `http://www.youtube.com/watch?v=${id}`],
    ["plain http short link", `http://youtu.be/${id}`],
    ["a look-alike suffix host", `https://youtube.com.evil.io/watch?v=${id}`],
    ["a look-alike host with an extra letter", `https://www.youtubee.com/watch?v=${id}`],
    ["a look-alike short host", `https://youtu.be.evil.io/${id}`],
    ["a host that ends with the site's name", `https://notyoutube.com/watch?v=${id}`],
    ["credentials that hide another host", `https://www.youtube.com@evil.io/watch?v=${id}`],
    ["credentials before the real host", `https://user:pw@www.youtube.com/watch?v=${id}`],
    ["a non-default port", `https://www.youtube.com:8443/watch?v=${id}`],
    ["a trailing-dot host", `https://www.youtube.com./watch?v=${id}`],
    ["a punycode look-alike", `https://www.xn--youtub-cva.com/watch?v=${id}`],
    ["the privacy-mode embed host", `https://www.youtube-nocookie.com/embed/${id}`],
    ["another video site", "https://vimeo.com/76979871"],
    ["the site's URL inside another URL's path", `https://evil.io/https://www.youtube.com/watch?v=${id}`],
    ["a watch page without an id", "https://www.youtube.com/watch"],
    ["a watch page with two ids", `https://www.youtube.com/watch?v=${id}&v=aaaaaaaaaaa`],
    ["an id that is too short", "https://www.youtube.com/watch?v=abc"],
    ["an id that is too long", `https://www.youtube.com/watch?v=${id}x`],
    ["an id with invalid characters", "https://youtu.be/dQw4w9WgX%3C"],
    ["a playlist page", "https://www.youtube.com/playlist?list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs"],
    ["a channel page", "https://www.youtube.com/@GoogleDevelopers"],
    ["a shorts page with extra segments", `https://www.youtube.com/shorts/${id}/extra`],
    ["an embed page without an id", "https://www.youtube.com/embed/"],
    ["a short link with extra segments", `https://youtu.be/${id}/more`],
    ["the short host with a watch path", `https://youtu.be/watch?v=${id}`],
    ["the music host with a shorts path", `https://music.youtube.com/shorts/${id}`],
    ["a path-only string", `/watch?v=${id}`],
    ["no scheme", `www.youtube.com/watch?v=${id}`],
    ["a javascript URL", "javascript:alert(1)"],
    ["a data URL", "data:video/mp4;base64,AAAA"],
    ["an empty string", ""]
  ]
  it.each(refused)("refuses %s", (_, input) => {
    expect(canonicalVideoUrl(input)).toBeUndefined()
  })
})
