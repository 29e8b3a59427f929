import type { CliIo } from "./cli-io.ts";

/**
 * Commands of spec 4.2 that later work builds. They say so and exit 2 instead of pretending:
 * a script that calls them fails loudly rather than publishing nothing.
 */
export const LATER_COMMANDS = {
  test: { args: "<dir>", summary: "run every sandbox stage's fixtures locally", arrives: "verification" },
  upload: {
    args: "<dir>",
    summary: "upload and validate a package against the service",
    arrives: "the service",
  },
  draft: {
    args: "<dir>",
    summary: "lint, upload, validate and publish a package as private work",
    arrives: "the service",
  },
  publish: { args: "<dir>", summary: "identical to draft", arrives: "the service" },
  verify: {
    args: "<problem>",
    summary: "run a published contract's sandbox stages on local files (--artifact role=path)",
    arrives: "verification",
  },
  whoami: { args: "", summary: "show the signed-in user", arrives: "the service" },
} as const;

export function notAvailable(name: string, arrives: string, io: CliIo): number {
  io.stderr(`svc ${name} is not available in this version: it arrives with ${arrives}. Nothing was done.\n`);
  return 2;
}
