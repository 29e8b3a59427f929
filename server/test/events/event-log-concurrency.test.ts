import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { EventKind } from "@svc/schemas";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { appendEvent } from "../../src/events/append-event.ts";
import { listEvents } from "../../src/events/list-events.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { commitEvent } from "./support/commit-event.ts";

const OPEN_WRITER = fileURLToPath(new URL("./support/open-writer.ts", import.meta.url));

/** The event log under concurrent writers (migration 032): no global lock, nothing skipped or repeated. */
describeWithDatabase("the event log under concurrent writers", () => {
  const db = useTestDatabase();
  let user: SeededUser;
  const nobody = async () => false;

  beforeAll(async () => {
    user = await seedUser(db.sql, "log-writer", { scopes: ["read"] });
  });

  /** A reader with its own cursor: each poll reads the events/list pages after it to the end. */
  function reader(from: string) {
    const seen: Array<{ id: string; tag: string }> = [];
    let cursor = from;
    return {
      seen,
      async poll(limit = 3): Promise<void> {
        for (;;) {
          const page = await listEvents(db.sql, user.id, { cursor, limit }, nobody);
          for (const event of page.events) seen.push({ id: event.id, tag: String(event.data.tag) });
          cursor = page.next_cursor;
          if (!page.has_more) return;
        }
      },
    };
  }

  async function head(): Promise<string> {
    const [row] = await db.sql<{ id: string }[]>`select coalesce(max(id), 0)::text as id from events`;
    return row!.id;
  }

  const schedule = fc
    .array(fc.record({ events: fc.integer({ min: 1, max: 3 }), commits: fc.nat(4).map((n) => n > 0) }), {
      minLength: 2,
      maxLength: 5,
    })
    .chain((writers) =>
      fc.tuple(
        fc.constant(writers),
        fc.shuffledSubarray([...writers.keys()], { minLength: writers.length, maxLength: writers.length }),
      ),
    );

  it("writers committing in any order, readers polling throughout: each reader gets the committed events once, in log order, each transaction's together", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(schedule, async ([writers, commitOrder]) => {
        round++;
        const start = await head();
        const readers = [reader(start), reader(start)];
        let writing = true;
        // Both readers poll (and settle) continuously while the writers commit.
        const polling = readers.map(async (r) => {
          while (writing) {
            await r.poll();
            await new Promise((resolve) => setImmediate(resolve));
          }
        });
        const gates = writers.map(() => Promise.withResolvers<void>());
        const appended = writers.map(() => Promise.withResolvers<void>());
        const tags = writers.map((w, i) => Array.from({ length: w.events }, (_, e) => `${round}.${i}.${e}`));
        const transactions = writers.map(async (w, i) => {
          // Writer i appends after writer i - 1, so append order differs from commit order.
          if (i > 0) await appended[i - 1]!.promise;
          try {
            await db.sql.begin(async (tx) => {
              for (const tag of tags[i]!) {
                await appendEvent(tx, {
                  kind: EventKind.runFinished,
                  occurredAt: new Date(),
                  audienceUserId: user.id,
                  data: { tag },
                });
              }
              appended[i]!.resolve();
              await gates[i]!.promise;
              if (!w.commits) throw new Error("rolled back");
            });
          } catch (error) {
            if ((error as Error).message !== "rolled back") throw error;
          }
        });
        await appended.at(-1)!.promise;
        for (const i of commitOrder) {
          gates[i]!.resolve();
          await transactions[i];
        }
        writing = false;
        await Promise.all(polling);
        for (const r of readers) await r.poll(50);

        const log = await db.sql<{ id: string; tag: string }[]>`
          select id::text as id, data->>'tag' as tag from events
          where id > ${start}::bigint and audience_user_id = ${user.id} order by events.id`;
        const committed = writers.flatMap((w, i) => (w.commits ? tags[i]! : []));
        expect(new Set(log.map((e) => e.tag))).toEqual(new Set(committed));
        expect(log).toHaveLength(committed.length);
        for (const r of readers) expect(r.seen).toEqual(log);
        // A transaction's events are numbered together, in the order it appended them.
        const order = log.map((e) => e.tag);
        for (const [i, w] of writers.entries()) {
          if (!w.commits) continue;
          const at = order.indexOf(tags[i]![0]!);
          expect(order.slice(at, at + tags[i]!.length)).toEqual(tags[i]);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  /** Starts an open-writer process and resolves with its backend pid once its transaction is open. */
  async function openWriter(mode: "writer" | "settler"): Promise<{ child: ChildProcess; backend: number }> {
    const child = spawn(process.execPath, [OPEN_WRITER, db.url, mode, user.id], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.setEncoding("utf8");
    for await (const chunk of child.stdout!) {
      out += chunk;
      if (out.includes("\n")) break;
    }
    const backend = Number(out.trim());
    expect(backend).toBeGreaterThan(0);
    return { child, backend };
  }

  async function killed(child: ChildProcess, backend: number): Promise<void> {
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
    // The server ends the backend when it notices its client is gone; its transaction rolls back.
    while ((await db.sql`select 1 from pg_stat_activity where pid = ${backend}`).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const event = (tag: string) => ({
    kind: EventKind.runFinished,
    occurredAt: new Date(),
    audienceUserId: user.id,
    data: { tag },
  });

  it("a writer killed (-9) mid-transaction holds nobody up and leaves no gap: its event never appears", async () => {
    const r = reader(await head());
    const { child, backend } = await openWriter("writer");
    // While it holds its transaction open, later writers commit and readers read them at once.
    await commitEvent(db.sql, event("after-1"));
    await r.poll();
    expect(r.seen.map((e) => e.tag)).toEqual(["after-1"]);
    await killed(child, backend);
    await commitEvent(db.sql, event("after-2"));
    await r.poll();
    expect(r.seen.map((e) => e.tag)).toEqual(["after-1", "after-2"]);
    const [{ left }] = (await db.sql`select count(*)::int as left from pending_events`) as unknown as [
      { left: number },
    ];
    expect(left).toBe(0);
  }, 60_000);

  it("a settler killed (-9) holding the settlers' lock loses nothing: the readers it held up then read every event once", async () => {
    const r = reader(await head());
    await db.sql.begin((tx) => appendEvent(tx, event("before")));
    const { child, backend } = await openWriter("settler");
    // Writers still commit; the readers wait for the lock the killed settler held.
    await db.sql.begin((tx) => appendEvent(tx, event("during")));
    const waiting = r.poll();
    await killed(child, backend);
    await waiting;
    expect(r.seen.map((e) => e.tag)).toEqual(["before", "during"]);
  }, 60_000);
});
