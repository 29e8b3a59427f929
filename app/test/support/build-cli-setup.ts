import { buildCli } from "../../bin/build-cli.ts";

/** Vitest global setup: the bundle the tests' `svc` processes run is built from these sources. */
export default async function setup(): Promise<void> {
  await buildCli();
}
