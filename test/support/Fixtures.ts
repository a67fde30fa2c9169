import { fileURLToPath } from "node:url"

/**
 * Where the tests' data lives, inside the repository: `test/fixtures` (the file corpus with its
 * `manifest.json`, and the golden provider streams) and `test/reference` (the OpenAI OpenAPI
 * document). See the README in each folder.
 */
export const fixturesDir: string = fileURLToPath(new URL("../fixtures", import.meta.url))
export const referenceDir: string = fileURLToPath(new URL("../reference", import.meta.url))
