// A worker process whose checkers never return, so a test can kill it (SIGKILL) while it runs an
// implementation's conformance fixtures after publication.
// argv: <database url> <blob dir>. Prints "started <stage key>" when a fixture has begun.
import { pino } from "pino";
import { connectSql } from "../../../src/core/db/connect-sql.ts";
import { openServices } from "../../../src/edges/cli/open-services.ts";
import { startWorker } from "../../../src/edges/worker/start-worker.ts";

const sql = connectSql(process.argv[2]!, pino({ level: "silent" }));
const services = await openServices({
  sql,
  log: pino({ level: "silent" }),
  clock: () => new Date(),
  dataDir: process.argv[3]!,
  blobDir: process.argv[3]!,
  signingSecret: "test-signing-secret-of-32-bytes!",
  env: {},
  sandbox: {
    engines: async () => ({ docker: false, bwrap: false, hostInterpreter: false }),
    run: async (job) => {
      process.stdout.write(`started ${job.stage_key}\n`);
      return await new Promise(() => {});
    },
  },
});
await startWorker(services, { concurrency: 1, pollInterval: 100 });
process.stdout.write("ready\n");
