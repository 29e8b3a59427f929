import type { CliIo } from "./cli-io.ts";

/**
 * Commands of spec 4.2 that later work builds. They say so and exit 2 instead of pretending:
 * a script that calls them fails loudly rather than publishing nothing.
 */
export const LATER_COMMANDS = {
  test: { args: "<dir>", summary: "run every sandbox stage's fixtures locally", arrives: "verification" },
  verify: {
    args: "<problem>",
    summary: "run a published contract's sandbox stages on local files (--artifact role=path)",
    arrives: "verification",
  },
} as const;

export function notAvailable(name: string, arrives: string, io: CliIo): number {
  io.stderr(`svc ${name} is not available in this version: it arrives with ${arrives}. Nothing was done.\n`);
  return 2;
}
