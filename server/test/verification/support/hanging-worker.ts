// A worker process whose checkers never return, so a test can kill it mid-stage (SIGKILL).
// argv: <database url>. Prints "started <run id>" when a stage has begun.
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
