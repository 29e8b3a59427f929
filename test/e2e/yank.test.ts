import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith } from "../../app/test/cli/support-run.ts";
import type { Services } from "../../server/src/core/services/services.ts";
import { buildApp } from "../../server/src/edges/cli/build-app.ts";
import { issueToken } from "../../server/src/users/issue-token.ts";
import type { Principal } from "../../server/src/users/principal.ts";
import {
  fixturePackage,
  newAuthor,
  newUser,
  publishFiles,
} from "../../server/test/authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../../server/test/support/test-database.ts";
import { testServices } from "../../server/test/support/test-services.ts";

/**
 * `svc verifier yank` and `svc protocol yank` against the real service: the publisher yanks with
 * a reason, a second yank exits 1 with already_yanked, another user exits 1 and changes nothing,
 * and a missing reason or a wrong kind of id is a usage error (exit 2) before any call.
 */
describeWithDatabase("svc verifier yank and svc protocol yank", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: ReturnType<typeof buildApp>;
  let url: string;
  let home: string;
  let author: Principal;
  let other: Principal;
  const tokens = new Map<Principal, string>();

  beforeAll(async () => {
    services = testServices(db.sql);
    app = buildApp(services);
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    home = mkdtempSync(join(tmpdir(), "svc-e2e-yank-home-"));
    author = await newAuthor(db.sql);
    other = await newUser(db.sql);
    for (const who of [author, other]) {
      tokens.set(who, (await issueToken(db.sql, who.user.handle, ["read", "contribute"])).token);
    }
  });
  afterAll(async () => {
    await app?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const svcAs = (who: Principal, ...argv: string[]) =>
    svcWith({ env: { SVC_BASE_URL: url, SVC_TOKEN: tokens.get(who), XDG_CONFIG_HOME: home } }, argv);

  it("yanks an implementation once, with its reason, and says what the stage runs now", async () => {
    const published = await publishFiles(services, author, fixturePackage("valid-builtin-sat"));
    const id = published.verifier_implementation_ids[0]!;
    const refused = await svcAs(other, "verifier", "yank", id, "--reason", "not mine");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc verifier yank: not_found: /);

    const run = await svcAs(author, "verifier", "yank", id, "--reason", "accepts anything");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^yanked +${id}$`, "m"));
    expect(run.stdout).toMatch(/^reason +accepts anything$/m);
    expect(run.stdout).toMatch(/^current +none \(the stage cannot run\)$/m);
    const [row] = await db.sql`select yank_reason_md from verifier_implementations where id = ${id}`;
    expect(row!.yank_reason_md).toBe("accepts anything");

    const again = await svcAs(author, "verifier", "yank", id, "--reason", "twice", "--json");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^svc verifier yank: already_yanked: /);
  });

  it("yanks a protocol, printing the tool's envelope with --json", async () => {
    const published = await publishFiles(services, author, fixturePackage("valid-review"));
    const id = published.review_protocol_ids[0]!;
    const run = await svcAs(author, "protocol", "yank", id, "--reason", "superseded", "--json");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      review_protocol_id: id,
      yank: { yanked_by_user_id: author.user.id, reason_md: "superseded" },
    });
  });

  it("refuses a missing reason or another kind of id as usage (exit 2) before calling the service", async () => {
    const noReason = await svcAs(author, "protocol", "yank", "rpt_0000000000");
    expect(noReason).toMatchObject({ code: 2 });
    expect(noReason.stderr).toContain("--reason");
    const wrongId = await svcAs(author, "verifier", "yank", "rpt_0000000000", "--reason", "x");
    expect(wrongId).toMatchObject({ code: 2 });
    expect(wrongId.stderr).toContain("vfi_");
  });
});
