import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { Services } from "../../../../src/core/services/services.ts";
import { sealedContract } from "../../../sealing/support/sealed-fixture.ts";
import {
  seedContract,
  seedFinishedRun,
  seedImplementation,
  seedProblem,
} from "../../../support/seed-records.ts";

/** Where page screenshots go for a reviewer to look at: `test-results/screenshots/` at the root. */
export const SCREENSHOT_DIR = new URL("../../../../../test-results/screenshots/", import.meta.url).pathname;

const AXE_SOURCE = readFileSync(new URL(import.meta.resolve("axe-core/axe.min.js")), "utf8");

/** Saves a full-page screenshot named `name`.png under SCREENSHOT_DIR. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // A long page on a loaded machine can take a while to capture: more than an action's default.
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, timeout: 60_000 });
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

/** How far the page scrolls sideways at its current width (0: it does not). */
export async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => {
    // biome-ignore lint/suspicious/noExplicitAny: the document lives in the page, not in Node's types
    const inPage = globalThis as any;
    return inPage.document.documentElement.scrollWidth - inPage.innerWidth;
  });
}

/**
 * Checks the page in light and dark at 375 and 1280 px (axe-core, a screenshot each, and no
 * sideways scroll at 375 px); leaves it light at the size it had.
 */
export async function expectEveryLook(page: Page, name: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await expectAccessible(page);
      if (width === 375)
        expect(await sidewaysScroll(page), `sideways scroll of ${page.url()} at 375 px`).toBe(0);
      await screenshot(page, `${name}-${scheme}-${width}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(size);
}

/**
 * The scored and sealed Problems the participation pages are read against: a BENCHMARK
 * "fastest" (wall time, lower is better, baseline 50) with a finished verified run per
 * `[user id, score]`, and a listed "sealed-sat" sealed as `sealingPolicy` says, both on one
 * sealed Contract with a builtin implementation.
 */
export async function seedScoredAndSealed(
  services: Services,
  owner: string,
  options: {
    campaignId?: string;
    scores: ReadonlyArray<readonly [string, number]>;
    sealing: Record<string, unknown>;
  },
): Promise<void> {
  const contractId = await seedContract(services.sql, owner, sealedContract());
  await seedImplementation(services.sql, { contractId, stageKey: "check", author: owner });
  const fastest = await seedProblem(services, {
    owner,
    slug: "fastest",
    title: "Fastest",
    campaignId: options.campaignId,
    structure: "BENCHMARK",
    visibility: "listed",
    revision: {
      statement: "Go fast.",
      verifierContractId: contractId,
      benchmark: { metric_name: "wall time", direction: "minimize", unit: "ms", baseline: 50 },
    },
  });
  for (const [userId, score] of options.scores) {
    await seedFinishedRun(services.sql, {
      problemId: fastest.problemId,
      revisionId: fastest.revisionId,
      contractId,
      userId,
      result: "verified",
      score,
    });
  }
  await seedProblem(services, {
    owner,
    slug: "sealed-sat",
    title: "Sealed satisfiability",
    visibility: "listed",
    revision: {
      statement: "Satisfy the sealed instance.",
      verifierContractId: contractId,
      bindings: [{ key: "instance", bytes: "p cnf 1 1\n1 0\n", filename: "instance.cnf" }],
      sealing: options.sealing,
    },
  });
}
