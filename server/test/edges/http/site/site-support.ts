import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";

/** Where page screenshots go for a reviewer to look at: `test-results/screenshots/` at the root. */
export const SCREENSHOT_DIR = new URL("../../../../../test-results/screenshots/", import.meta.url).pathname;

const AXE_SOURCE = readFileSync(new URL(import.meta.resolve("axe-core/axe.min.js")), "utf8");

/** Saves a full-page screenshot named `name`.png under SCREENSHOT_DIR. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * Runs axe-core inside the page (WCAG 2.x A and AA rules: labels, headings, landmarks, contrast)
 * and fails on any serious or critical violation, naming each with its first offending node. The
 * page's context must bypass the Content-Security-Policy to inject axe: the pages run no script.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe and the document live in the page, not in Node's types
    const inPage = globalThis as any;
    const result = await inPage.axe.run(inPage.document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "best-practice"] },
    });
    return result.violations
      .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v: { id: string; help: string; nodes: { target: string[] }[] }) =>
          `${v.id}: ${v.help} at ${v.nodes[0]?.target.join(" ")}`,
      );
  });
  expect(violations, `accessibility of ${page.url()}`).toEqual([]);
}
