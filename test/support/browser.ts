import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Where Chromium is: `SVC_CHROMIUM`, else Debian's `chromium` package (installed by `.ci/run`). */
export const CHROMIUM_PATH = process.env.SVC_CHROMIUM || "/usr/bin/chromium";

/**
 * Why the browser suites cannot run here, or null when they can. A newcomer's machine without
 * Chromium skips them; CI (CI=true) never does: there a missing browser fails the run.
 */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  const reason = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set SVC_CHROMIUM)`;
  if (process.env.CI === "true") throw new Error(`the browser suites are required in CI: ${reason}`);
  return reason;
}

/**
 * A headless Chromium for browser tests, driven by playwright-core. The flags keep it off the
 * network it cannot reach (background updates, sync, QUIC). Close it in afterAll.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
