import { type Browser, chromium } from "playwright-core";

/** Where Chromium is: `SVC_CHROMIUM`, else Debian's `chromium` package (installed by `.ci/run`). */
export const CHROMIUM_PATH = process.env.SVC_CHROMIUM || "/usr/bin/chromium";

/** A headless Chromium for browser tests, driven by playwright-core. Close it in afterAll. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox"] });
}
