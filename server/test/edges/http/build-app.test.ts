import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { connectSql } from "../../../src/core/db/connect-sql.ts";
import { buildApp } from "../../../src/edges/cli/build-app.ts";
import { silentLog } from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";

it("lets an in-flight request finish when it closes, and takes no new ones", async () => {
  const sql = connectSql("postgres://nobody@127.0.0.1:1/none", silentLog);
  const app = buildApp(testServices(sql));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  app.get("/slow", async () => {
    entered();
    await sleep(300);
    return { finished: true };
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  try {
    const slow = fetch(`${url}/slow`);
    await inside;
    const closed = app.close();
    const response = await slow;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    await closed;
    await expect(fetch(`${url}/slow`)).rejects.toThrow();
  } finally {
    await app.close();
    await sql.end({ timeout: 0 });
  }
});
