import { EventKind } from "@svc/schemas";
import { beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { pruneEvents } from "../../src/events/prune-events.ts";
import { subscribeEvents } from "../../src/events/subscribe-events.ts";
import { unsubscribeEvents } from "../../src/events/unsubscribe-events.ts";
import { type SeededUser, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { commitEvent } from "./support/commit-event.ts";

const DAY = 86_400_000;
const T0 = new Date("2031-03-01T00:00:00Z");

/** Retention: events past SVC_EVENT_RETENTION_DAYS go, never one a live subscription still owes. */
describeWithDatabase("event retention", () => {
  const db = useTestDatabase();
  const now = T0;
  let services: Services;
  let user: SeededUser;

  beforeAll(async () => {
    services = {
      ...testServices(db.sql, { clock: () => now }),
      eventRetentionDays: 7,
      allowLoopbackWebhooks: true,
    };
    user = await seedUser(db.sql, "ret-user", { scopes: ["read", "contribute"] });
  });

  const eventAt = (at: Date, n: number) =>
    commitEvent(db.sql, {
      kind: EventKind.runFinished,
      occurredAt: at,
      audienceUserId: user.id,
      data: { n },
    });
  const kept = async (ids: string[]) =>
    (
      await db.sql<
        { id: string }[]
      >`select id::text as id from events where id = any(${ids}::bigint[]) order by id`
    ).map((row) => row.id);

  it("deletes events older than the retention with their delivery log, but none a live subscription has not delivered", async () => {
    const old = [
      await eventAt(new Date(T0.getTime() - 10 * DAY), 1),
      await eventAt(new Date(T0.getTime() - 9 * DAY), 2),
    ];
    // A live webhook subscription whose cursor sits before the second old event still owes it.
    const { subscription } = await subscribeEvents(services, user.id, {
      delivery: { type: "webhook", url: "http://127.0.0.1:9/hook" },
    });
    await db.sql`update event_subscriptions set cursor = ${old[0]!}::bigint where id = ${subscription.subscription_id}`;
    await db.sql`
      insert into event_deliveries (subscription_id, event_id, attempted_at, status_code, delivered, error, duration_ms)
      values (${subscription.subscription_id}, ${old[0]!}::bigint, ${T0}, 200, true, null, 1)`;
    const recent = await eventAt(new Date(T0.getTime() - DAY), 3);

    expect(await pruneEvents(services)).toBe(1);
    expect(await kept([...old, recent])).toEqual([old[1], recent]);
    expect(await db.sql`select 1 from event_deliveries where event_id = ${old[0]!}::bigint`).toHaveLength(0);

    // Once the subscription ends nothing pins the old event; a second run finds nothing more.
    await unsubscribeEvents(services, user.id, subscription.subscription_id);
    expect(await pruneEvents(services)).toBe(1);
    expect(await pruneEvents(services)).toBe(0);
    expect(await kept([...old, recent])).toEqual([recent]);
    // Rows are still never changed.
    await expect(db.sql`update events set data = '{}' where id = ${recent}::bigint`).rejects.toThrow(
      /append-only/,
    );
  });
});
