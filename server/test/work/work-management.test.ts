import { beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import { workTools } from "../../src/edges/mcp/tools/work-tools.ts";
import { setAdministrator } from "../../src/users/set-administrator.ts";
import type { ManagedWork } from "../../src/work/managed-work.ts";
import { callTool, callToolAs } from "../problems/call-tool.ts";
import { type SeededUser, seedCampaign, seedProblem, seedToken, seedUser } from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";

interface Management {
  work: ManagedWork;
  snapshot: string;
}

describe("work tools", () => {
  it("declare read scope for get and contribute writes for the edits", () => {
    expect(workTools.map((t) => [t.name, t.scope, t.kind])).toEqual([
      ["get_work_management", "read", "read"],
      ["update_work_details", "contribute", "write"],
      ["set_work_visibility", "contribute", "write"],
    ]);
  });
});

describeWithDatabase("work management", () => {
  const db = useTestDatabase();
  let services: Services;
  let trusted: SeededUser;
  let author: SeededUser;
  let contributor: SeededUser;
  let stranger: SeededUser;
  let admin: SeededUser;
  let counter = 0;

  const manage = (caller: SeededUser, work: Record<string, string>) =>
    callToolAs<Management>(services, caller, "get_work_management", { work });
  const setVisibility = async (
    caller: SeededUser,
    work: Record<string, string>,
    visibility: string,
    snapshot?: string,
  ) =>
    callToolAs<Management & { previous_visibility: string; changed: boolean }>(
      services,
      caller,
      "set_work_visibility",
      {
        work,
        visibility,
        expected_snapshot: snapshot ?? (await manage(caller, work)).snapshot,
      },
    );
  const searchSlugs = async (caller: SeededUser, query: string) =>
    (
      (await callTool(services, caller, "search_problems", { query, limit: 200 })).problems as Array<{
        slug: string;
      }>
    ).map((p) => p.slug);
  /** A fresh standalone problem owned by `owner`, private unless told otherwise. */
  const problemOf = async (owner: SeededUser, visibility: "private" | "unlisted" | "listed" = "private") => {
    counter += 1;
    const slug = `managed-${counter}`;
    await seedProblem(services, {
      owner: owner.id,
      slug,
      visibility,
      title: `Managed ${counter} lighthouse`,
    });
    return { problem: slug };
  };
  const audit = (subjectId: string) =>
    db.sql<{ action: string; actor_user_id: string; detail: Record<string, unknown> }[]>`
      select action, actor_user_id, detail from work_audit where subject_id = ${subjectId} order by id`;

  beforeAll(async () => {
    services = testServices(db.sql);
    trusted = await seedUser(db.sql, "trusted-owner", { capabilities: ["trusted_author"] });
    author = await seedUser(db.sql, "plain-author", { capabilities: ["author"] });
    contributor = await seedUser(db.sql, "no-capability");
    stranger = await seedUser(db.sql, "work-stranger", { capabilities: ["trusted_author"] });
    admin = await seedUser(db.sql, "work-admin", { admin: true });
  });

  it("shows its owner the work, its own and effective visibility, and a snapshot", async () => {
    const ref = await problemOf(trusted);
    const { work, snapshot } = await manage(trusted, ref);
    expect(work).toMatchObject({
      kind: "problem",
      slug: ref.problem,
      owner_user_id: trusted.id,
      visibility: "private",
      effective_visibility: "private",
      status: "open",
      priority_weight: 0.5,
      campaign_id: null,
    });
    expect(snapshot).toMatch(/^wsn_[A-Za-z0-9_-]+$/);
    expect((await manage(trusted, { problem: work.id })).snapshot).toBe(snapshot);
  });

  it("refuses non-owners: not_found for private work, forbidden for work they can read", async () => {
    const secret = await problemOf(trusted);
    await expect(manage(stranger, secret)).rejects.toMatchObject({ code: "not_found" });
    const open = await problemOf(trusted, "listed");
    await expect(manage(stranger, open)).rejects.toMatchObject({ code: "forbidden" });
    expect((await manage(admin, secret)).work.owner_user_id).toBe(trusted.id);
  });

  it("moves work private -> unlisted -> listed and back, with what readers see following each step", async () => {
    const ref = await problemOf(trusted);
    // 1. Private: invisible to others.
    await expect(callTool(services, stranger, "get_problem", ref)).rejects.toMatchObject({
      code: "not_found",
    });
    // 2. Unlisted: readable by name, still not searchable.
    const unlisted = await setVisibility(trusted, ref, "unlisted");
    expect(unlisted).toMatchObject({ previous_visibility: "private", changed: true });
    expect(unlisted.work.visibility).toBe("unlisted");
    expect((await callTool(services, stranger, "get_problem", ref)).problem).toMatchObject({
      visibility: "unlisted",
    });
    expect(await searchSlugs(stranger, "lighthouse")).not.toContain(ref.problem);
    // 3. Listed: searchable too.
    await setVisibility(trusted, ref, "listed", unlisted.snapshot);
    expect(await searchSlugs(stranger, "lighthouse")).toContain(ref.problem);
    // 4. And back down to private.
    await setVisibility(trusted, ref, "unlisted");
    await setVisibility(trusted, ref, "private");
    await expect(callTool(services, stranger, "get_problem", ref)).rejects.toMatchObject({
      code: "not_found",
    });
    const id = (await manage(trusted, ref)).work.id;
    expect((await audit(id)).map((row) => [row.action, row.detail])).toEqual([
      ["set_visibility", { from: "private", to: "unlisted" }],
      ["set_visibility", { from: "unlisted", to: "listed" }],
      ["set_visibility", { from: "listed", to: "unlisted" }],
      ["set_visibility", { from: "unlisted", to: "private" }],
    ]);
  });

  it("refuses a stale snapshot with conflict and names the current one", async () => {
    const ref = await problemOf(trusted);
    const { snapshot } = await manage(trusted, ref);
    const moved = await setVisibility(trusted, ref, "unlisted", snapshot);
    expect(moved.snapshot).not.toBe(snapshot);
    const stale = setVisibility(trusted, ref, "listed", snapshot);
    await expect(stale).rejects.toMatchObject({
      code: "conflict",
      details: { reason: "stale_snapshot", current_snapshot: moved.snapshot },
    });
    await expect(stale).rejects.toThrow(/get_work_management/);
    expect((await manage(trusted, ref)).work.visibility).toBe("unlisted");
  });

  it("changes nothing and records nothing when the visibility is already the one asked", async () => {
    const ref = await problemOf(trusted, "unlisted");
    const before = await manage(trusted, ref);
    const same = await setVisibility(trusted, ref, "unlisted", before.snapshot);
    expect(same).toMatchObject({ changed: false, snapshot: before.snapshot });
    expect(await audit(before.work.id)).toEqual([]);
  });

  describe("authorization", () => {
    it.each([
      // visibility, caller, reads by name, finds in search, manages
      ["private", "owner", true, true, true],
      ["private", "stranger", false, false, "not_found"],
      ["private", "admin", true, false, true],
      ["unlisted", "owner", true, true, true],
      ["unlisted", "stranger", true, false, "forbidden"],
      ["unlisted", "admin", true, false, true],
      ["listed", "owner", true, true, true],
      ["listed", "stranger", true, true, "forbidden"],
      ["listed", "admin", true, true, true],
    ] as const)(
      "%s work, %s: reads %s, finds %s, manages %s",
      async (visibility, who, reads, finds, manages) => {
        const caller = { owner: trusted, stranger, admin }[who];
        const ref = await problemOf(trusted, visibility);
        const read = callTool(services, caller, "get_problem", ref);
        if (reads) expect((await read).problem).toMatchObject({ slug: ref.problem, visibility });
        else await expect(read).rejects.toMatchObject({ code: "not_found" });
        expect((await searchSlugs(caller, "lighthouse")).includes(ref.problem)).toBe(finds);
        const managed = manage(caller, ref);
        if (manages === true) expect((await managed).work.slug).toBe(ref.problem);
        else await expect(managed).rejects.toMatchObject({ code: manages });
      },
    );

    it("needs a contribute token for the edits", async () => {
      const ref = await problemOf(trusted);
      const readOnly = await seedToken(db.sql, trusted, ["read"]);
      const { snapshot } = await manage(readOnly, ref);
      await expect(setVisibility(readOnly, ref, "unlisted", snapshot)).rejects.toMatchObject({
        code: "forbidden",
        details: { scope: "contribute" },
      });
      await expect(
        callTool(services, readOnly, "update_work_details", {
          work: ref,
          expected_snapshot: snapshot,
          title: "New",
        }),
      ).rejects.toMatchObject({ code: "forbidden" });
    });

    it("lets an owner without author access restrict their work but not raise it", async () => {
      const ref = await problemOf(contributor, "listed");
      await setVisibility(contributor, ref, "unlisted");
      await setVisibility(contributor, ref, "private");
      await expect(setVisibility(contributor, ref, "unlisted")).rejects.toMatchObject({
        code: "forbidden",
        details: { required_role: "author" },
      });
    });

    it("lets an author make their work unlisted but not list it", async () => {
      const ref = await problemOf(author);
      expect((await setVisibility(author, ref, "unlisted")).work.visibility).toBe("unlisted");
      await expect(setVisibility(author, ref, "listed")).rejects.toMatchObject({
        code: "forbidden",
        details: { required_role: "trusted_author" },
      });
    });

    it("lets a trusted author list their own work, but nobody else's", async () => {
      const own = await problemOf(stranger);
      expect((await setVisibility(stranger, own, "listed")).work.visibility).toBe("listed");
      const othersListed = await problemOf(trusted, "listed");
      await expect(setVisibility(stranger, othersListed, "private", "x")).rejects.toMatchObject({
        code: "forbidden",
      });
      const othersPrivate = await problemOf(trusted);
      await expect(setVisibility(stranger, othersPrivate, "listed", "x")).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("lets an administrator set any visibility on anyone's work, checked live", async () => {
      const ref = await problemOf(author);
      expect((await setVisibility(admin, ref, "listed")).work).toMatchObject({
        visibility: "listed",
        owner_user_id: author.id,
      });
      const id = (await manage(admin, ref)).work.id;
      expect((await audit(id))[0]).toMatchObject({ actor_user_id: admin.id });
      // Revoked a moment ago: the same token no longer manages others' work.
      const demoted = await seedUser(db.sql, "demoted-admin", { admin: true });
      const target = await problemOf(author);
      const { snapshot } = await manage(demoted, target);
      await setAdministrator(db.sql, demoted.id, false);
      await expect(setVisibility(demoted, target, "listed", snapshot)).rejects.toMatchObject({
        code: "not_found",
      });
    });
  });

  describe("campaigns", () => {
    it("applies a campaign's visibility to its problems, and a problem's exception only restricts", async () => {
      const campaignId = await seedCampaign(db.sql, { owner: trusted.id, slug: "beacons" });
      await seedProblem(services, {
        owner: trusted.id,
        slug: "beacon-a",
        campaignId,
        title: "Beacon harbor",
      });
      await seedProblem(services, {
        owner: trusted.id,
        slug: "beacon-b",
        campaignId,
        title: "Beacon harbor two",
        visibility: "unlisted",
      });
      // 1. The campaign is private: so are its problems, whatever their own setting.
      await expect(
        callTool(services, stranger, "get_problem", { problem: "beacon-a" }),
      ).rejects.toMatchObject({
        code: "not_found",
      });
      const child = await manage(trusted, { problem: "beacon-a" });
      expect(child.work).toMatchObject({ visibility: "listed", effective_visibility: "private" });
      // 2. Listing the campaign lists beacon-a; beacon-b's exception keeps it unlisted.
      const campaign = await setVisibility(trusted, { campaign: "beacons" }, "listed");
      expect(campaign.work).toMatchObject({ kind: "campaign", visibility: "listed" });
      expect(await searchSlugs(stranger, "harbor")).toEqual(["beacon-a"]);
      expect(
        (await callTool(services, stranger, "get_problem", { problem: "beacon-b" })).problem,
      ).toMatchObject({
        visibility: "unlisted",
      });
      const page = await callTool(services, stranger, "get_campaign", { campaign: "beacons" });
      expect((page.open_problems as Array<{ slug: string }>).map((p) => p.slug)).toEqual(["beacon-a"]);
      // 3. The child's snapshot moved with its campaign's visibility.
      const after = await manage(trusted, { problem: "beacon-a" });
      expect(after.work.effective_visibility).toBe("listed");
      expect(after.snapshot).not.toBe(child.snapshot);
      await expect(
        setVisibility(trusted, { problem: "beacon-a" }, "unlisted", child.snapshot),
      ).rejects.toMatchObject({
        code: "conflict",
      });
      expect((await audit(campaignId)).map((row) => row.detail)).toEqual([{ from: "private", to: "listed" }]);
    });
  });

  describe("update_work_details", () => {
    const update = (caller: SeededUser, args: Record<string, unknown>) =>
      callToolAs<Management & { changed: string[] }>(services, caller, "update_work_details", args);

    it("changes title, summary and priority in place and search follows the new words", async () => {
      const ref = await problemOf(trusted, "listed");
      const { snapshot, work } = await manage(trusted, ref);
      const updated = await update(trusted, {
        work: ref,
        expected_snapshot: snapshot,
        title: "Semaphore signalling",
        summary: "Signal with flags.",
        priority_weight: 0.9,
      });
      expect(updated.changed.sort()).toEqual(["priority_weight", "summary", "title"]);
      expect(updated.work).toMatchObject({ title: "Semaphore signalling", priority_weight: 0.9 });
      expect(updated.work.kind === "problem" && updated.work.current_revision_id).toBe(
        work.kind === "problem" && work.current_revision_id,
      );
      expect(await searchSlugs(stranger, "semaphore")).toEqual([ref.problem]);
      expect(await searchSlugs(stranger, "flags")).toEqual([ref.problem]);
      expect((await audit(work.id)).at(-1)).toMatchObject({
        action: "update_details",
        detail: { changes: { title: { from: work.title, to: "Semaphore signalling" } } },
      });
    });

    it("edits a campaign's description, and refuses fields of the other kind", async () => {
      await seedCampaign(db.sql, { owner: author.id, slug: "described" });
      const { snapshot } = await manage(author, { campaign: "described" });
      const updated = await update(author, {
        work: { campaign: "described" },
        expected_snapshot: snapshot,
        description_md: "# What this is",
      });
      expect(updated.work).toMatchObject({ kind: "campaign", description_md: "# What this is" });
      await expect(
        update(author, {
          work: { campaign: "described" },
          expected_snapshot: updated.snapshot,
          priority_weight: 1,
        }),
      ).rejects.toMatchObject({ code: "invalid_input", details: { field: "priority_weight" } });
      const ref = await problemOf(author);
      const problem = await manage(author, ref);
      await expect(
        update(author, { work: ref, expected_snapshot: problem.snapshot, description_md: "x" }),
      ).rejects.toMatchObject({ code: "invalid_input", details: { field: "description_md" } });
    });

    it("refuses a stale snapshot, an empty edit, bad values and non-owners", async () => {
      const ref = await problemOf(author, "listed");
      const first = await manage(author, ref);
      await update(author, { work: ref, expected_snapshot: first.snapshot, summary: "Changed once." });
      await expect(
        update(author, { work: ref, expected_snapshot: first.snapshot, summary: "Changed twice." }),
      ).rejects.toMatchObject({ code: "conflict" });
      const current = await manage(author, ref);
      await expect(update(author, { work: ref, expected_snapshot: current.snapshot })).rejects.toMatchObject({
        code: "invalid_input",
      });
      for (const bad of [{ priority_weight: 1.5 }, { title: "" }, { title: "two\nlines" }]) {
        await expect(
          update(author, { work: ref, expected_snapshot: current.snapshot, ...bad }),
        ).rejects.toMatchObject({ code: "invalid_input" });
      }
      await expect(
        update(stranger, { work: ref, expected_snapshot: current.snapshot, title: "Mine now" }),
      ).rejects.toMatchObject({ code: "forbidden" });
      const unchanged = await update(author, {
        work: ref,
        expected_snapshot: current.snapshot,
        summary: "Changed once.",
      });
      expect(unchanged).toMatchObject({ changed: [], snapshot: current.snapshot });
    });
  });
});
