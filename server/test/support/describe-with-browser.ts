import { describe } from "vitest";
import { browserMissing } from "../../../test/support/browser.ts";
import { describeWithDatabase } from "./test-database.ts";

/**
 * `describe` for suites that drive Chromium against the service: skipped on a newcomer's machine
 * without a database or a browser, never in CI (browserMissing throws there instead).
 */
export const describeWithBrowser = browserMissing() === null ? describeWithDatabase : describe.skip;
