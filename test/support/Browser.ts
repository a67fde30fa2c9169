import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"

/** Debian's `chromium` package; `.ci/run` installs it. */
export const chromiumPath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const hasChromium = existsSync(chromiumPath)
export const noChromiumReason = `headless browser tests need Debian's 'chromium' package at ${chromiumPath} (apt-get install -y chromium)`

/** Headless Chromium through playwright-core; root in a container needs the sandbox off. */
export const launchChromium = async (): Promise<Browser> => {
  const { chromium } = await import("playwright-core")
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] })
}

/** Screenshots for review go under test-output/ (gitignored), one folder per suite. */
export const screenshotter = (suite: string) => {
  const directory = join(process.cwd(), "test-output", suite)
  mkdirSync(directory, { recursive: true })
  return (page: Page, name: string) => page.screenshot({ path: join(directory, `${name}.png`), fullPage: true })
}
