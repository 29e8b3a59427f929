import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import type { CliIo } from "../../src/cli/cli-io.ts";
import { runCli } from "../../src/cli/main.ts";

const fixtures = new URL("../fixtures/lint/", import.meta.url).pathname;
// Built by vitest's global setup (app/test/support/build-cli-setup.ts) from these sources.
const bundle = new URL("../../dist/svc.cjs", import.meta.url).pathname;

async function lint(run: typeof runCli, dir: string): Promise<string> {
  let output = "";
  const io: CliIo = { stdout: (text) => (output += text), stderr: (text) => (output += text), color: false };
  const code = await run(["lint", dir, "--json"], io);
  return `exit ${code}\n${output}`;
}

it("the bundled svc (ahead-of-time schema validators) lints every fixture exactly as the sources do", async () => {
  const bundled = createRequire(import.meta.url)(bundle) as { runCli: typeof runCli };
  const packages = readdirSync(fixtures, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  expect(packages.length).toBeGreaterThan(50);
  for (const { name } of packages) {
    expect(await lint(bundled.runCli, `${fixtures}${name}`), name).toBe(
      await lint(runCli, `${fixtures}${name}`),
    );
  }
});
