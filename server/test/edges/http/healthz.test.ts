import { expect, it } from "vitest";
import { connectSql } from "../../../src/core/db/connect-sql.ts";
import { freePort } from "../../../src/core/db/embedded/free-port.ts";
import { readMigrations } from "../../../src/core/db/read-migrations.ts";
import { ServiceError } from "../../../src/core/errors/service-error.ts";
import { buildApp } from "../../../src/edges/cli/build-app.ts";
import {
  createTestDatabase,
  describeWithDatabase,
  silentLog,
  useTestDatabase,
} from "../../support/test-database.ts";
import { testServices } from "../../support/test-services.ts";

const clock = () => new Date("2026-01-01T00:00:00Z");

describeWithDatabase("GET /healthz", () => {
  const db = useTestDatabase();

  it("answers {ok: true} when the database is reachable and migrated", async () => {
    const app = buildApp(testServices(db.sql, { clock }));
    const response = await app.inject({ method: "GET", url: "/healthz" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    await app.close();
  });

  it("answers 503 while the database lacks a migration", async () => {
    const bare = await createTestDatabase({ migrated: false });
    const app = buildApp(testServices(bare.sql, { clock }));
    try {
      const response = await app.inject({ method: "GET", url: "/healthz" });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ ok: false, error: { code: "unavailable" } });
      const names = readMigrations().map((migration) => migration.name);
      expect(response.json().error.message).toContain(`${names.join(", ")}: run svc-server migrate`);
    } finally {
      await app.close();
      await bare.drop();
    }
  });
});

it("answers 503 when the database cannot be reached", async () => {
  const sql = connectSql(`postgres://nobody@127.0.0.1:${await freePort()}/none`, silentLog);
  const app = buildApp(testServices(sql, { clock }));
  try {
    const response = await app.inject({ method: "GET", url: "/healthz" });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      ok: false,
      error: { code: "unavailable", message: "the database is unreachable" },
    });
  } finally {
    await app.close();
    await sql.end({ timeout: 0 });
  }
});

it("reports unknown routes, service errors and failures in the catalogue's wire form", async () => {
  const sql = connectSql("postgres://nobody@127.0.0.1:1/none", silentLog);
  const app = buildApp(testServices(sql, { clock }));
  app.get("/conflict", async () => {
    throw new ServiceError("conflict", "handle is taken: choose another one", { field: "handle" });
  });
  app.get("/boom", async () => {
    throw new Error("secret internals");
  });
  app.post("/echo", async (request) => request.body);
  try {
    const missing = await app.inject({ method: "GET", url: "/nowhere?x=1" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: "not_found", message: "no route GET /nowhere" } });
    const conflict = await app.inject({ method: "GET", url: "/conflict" });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({
      error: { code: "conflict", message: "handle is taken: choose another one", field: "handle" },
    });
    const boom = await app.inject({ method: "GET", url: "/boom" });
    expect(boom.statusCode).toBe(500);
    expect(boom.json().error.code).toBe("internal");
    expect(boom.body).not.toContain("secret internals");
    const bad = await app.inject({
      method: "POST",
      url: "/echo",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe("invalid_input");
  } finally {
    await app.close();
    await sql.end({ timeout: 0 });
  }
});
