import { ensureTemplate } from "./PgliteTemplate.ts"

/** Runs once before any test file: prepares the embedded database template. */
export default async function setup(): Promise<void> {
  await ensureTemplate()
}
