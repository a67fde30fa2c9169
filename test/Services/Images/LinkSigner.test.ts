import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { publicBaseUrl } from "../../../src/Http/ImagesRoutes.ts"
import { makeLinkSigner } from "../../../src/Services/Images/LinkSigner.ts"

describe("image links", () => {
  const signer = makeLinkSigner("a-secret-shared-by-every-instance")

  it("a signature holds only for its name, its expiry and its key", () => {
    const signature = signer.sign("img_abc.png", 1_900_000_000)
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(signer.verify("img_abc.png", 1_900_000_000, signature)).toBe(true)
    expect(signer.verify("img_abd.png", 1_900_000_000, signature)).toBe(false)
    expect(signer.verify("img_abc.png", 1_900_000_001, signature)).toBe(false)
    expect(signer.verify("img_abc.png", 1_900_000_000, signature.slice(1))).toBe(false)
    expect(makeLinkSigner("another-secret-of-another-gateway").verify("img_abc.png", 1_900_000_000, signature)).toBe(false)
    // Every instance with the same key accepts the links of the others.
    expect(makeLinkSigner("a-secret-shared-by-every-instance").verify("img_abc.png", 1_900_000_000, signature)).toBe(true)
  })

  // Names are ids in the base64url alphabet (the route refuses anything else before verifying).
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  const Name = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 63 })))
  const name = (digits: ReadonlyArray<number>) => `img_${digits.map((d) => alphabet[d]).join("")}.png`
  it.prop("no signature of one name or expiry verifies another", { a: Name, b: Name, expires: Schema.Int, later: Schema.Int }, ({ a, b, expires, later }) =>
    (name(a) === name(b) || !signer.verify(name(b), expires, signer.sign(name(a), expires))) &&
    (later === expires || !signer.verify(name(a), later, signer.sign(name(a), expires))))

  it("the public base URL: the configured one, else the scheme and host the request came with", () => {
    const headers = (values: Record<string, string>) => (name: string) => values[name]
    expect(publicBaseUrl("https://gw.example.com/api/", headers({ host: "10.0.0.5:8080" }))).toBe("https://gw.example.com/api")
    expect(publicBaseUrl(undefined, headers({ host: "127.0.0.1:8080" }))).toBe("http://127.0.0.1:8080")
    expect(publicBaseUrl(undefined, headers({ host: "10.0.0.5", "x-forwarded-proto": "https", "x-forwarded-host": "images.example.com, proxy.local" }))).toBe(
      "https://images.example.com"
    )
    expect(publicBaseUrl(undefined, headers({ host: "[::1]:8080" }))).toBe("http://[::1]:8080")
    // A Host that is not a host name cannot bend the link into another URL.
    expect(publicBaseUrl(undefined, headers({ host: "evil.com/@x" }))).toBe("http://localhost")
    expect(publicBaseUrl(undefined, headers({ "x-forwarded-proto": "javascript" , host: "a.b" }))).toBe("http://a.b")
  })
})
