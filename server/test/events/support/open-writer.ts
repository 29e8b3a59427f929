/**
 * A process that opens a transaction on the event log and never ends it, for the kill -9 tests:
 * `node open-writer.ts <database url> writer <user id>` appends one event (`{tag: "killed"}`),
 * `... settler` settles the log inside its transaction, holding the settlers' lock. Either way it
 * prints its PostgreSQL backend's pid once the transaction is open, then waits to be killed.
 */
import postgres from "postgres";
import { appendEvent } from "../../../src/events/append-event.ts";

const [url, mode, userId] = process.argv.slice(2);
const sql = postgres(url!, { max: 1, onnotice: () => {} });
await sql.begin(async (tx) => {
  const [{ pid }] = (await tx`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  if (mode === "writer") {
    await appendEvent(tx, {
      kind: "verification.run_finished",
      occurredAt: new Date(),
      audienceUserId: userId!,
      data: { tag: "killed" },
    });
  } else {
    await tx`select settle_events()`;
  }
  process.stdout.write(`${pid}\n`);
  await new Promise(() => {});
});
