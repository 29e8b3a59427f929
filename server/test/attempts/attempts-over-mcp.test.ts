import { expect, it } from "vitest";
import { seedProblem, seedSkillVersion } from "../support/seed-records.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import { call, refuse, startOn, useSolvingFixture } from "./support/solving-fixture.ts";

interface AttemptRecord {
  id: string;
  status: string;
  outcome: string | null;
  problem_id: string;
  continues_attempt_id: string | null;
  continued_by_attempt_id: string | null;
  revision_number: number;
}

describeWithDatabase("attempts over /mcp", () => {
  const f = useSolvingFixture();

  it("annotates the attempt tools with their scope and kind", async () => {
    const tools = new Map((await f.as(f.solver).listTools()).map((tool) => [tool.name, tool]));
    for (const name of ["get_attempt", "list_my_attempts", "list_attempts", "search_notes", "get_note"]) {
      expect(tools.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    }
    expect(tools.get("start_attempt")?.annotations).toMatchObject({ destructiveHint: false });
    expect(tools.get("withdraw_artifact")?.annotations?.destructiveHint).toBe(true);
    expect(tools.get("withdraw_submission")?.annotations?.destructiveHint).toBe(true);
  });

  it("starts an attempt with next steps and resource URIs that carry its id", async () => {
    const skill = await seedSkillVersion(f.services, {
      publisher: f.owner.id,
      name: "hints",
      files: { "SKILL.md": "# Hints\n" },
    });
    await seedProblem(f.services, {
      owner: f.owner.id,
      slug: "with-resources",
      visibility: "listed",
      revision: {
        statement: "Use the data.",
        skillRefs: [{ skill_version_id: skill, requirement: "required" }],
        bindings: [{ key: "data", bytes: "1 2 3\n" }],
      },
    });
    const started = await call<{
      attempt: AttemptRecord;
      continues: unknown;
      next_steps: string[];
      skill_resources: Array<{
        entry_uri: string;
        manifest_uri: string;
        files: Array<{ resource_uri: string }>;
      }>;
      reference_resources: Array<{ resource_uri: string; download_url: string }>;
    }>(f.as(f.solver), "start_attempt", { problem: "with-resources" });
    const id = started.attempt.id;
    expect(started.attempt).toMatchObject({ status: "active", outcome: null, revision_number: 1 });
    expect(started.continues).toBeNull();
    expect(started.next_steps.join("\n")).toContain(`"attempt_id": "${id}"`);
    const suffix = `?working_attempt_id=${id}`;
    expect(started.skill_resources[0]!.entry_uri.endsWith(suffix)).toBe(true);
    expect(started.skill_resources[0]!.manifest_uri.endsWith(suffix)).toBe(true);
    expect(started.skill_resources[0]!.files[0]!.resource_uri.endsWith(suffix)).toBe(true);
    expect(started.reference_resources[0]!.resource_uri.endsWith(suffix)).toBe(true);
    expect(started.reference_resources[0]!.download_url).not.toContain("working_attempt_id");

    // 2. The URI reads as it is, and the outcome names the Attempt as accepted.
    const contents = await f.as(f.solver).readResource(started.reference_resources[0]!.resource_uri);
    expect(contents[0]).toMatchObject({ text: "1 2 3\n", uri: started.reference_resources[0]!.resource_uri });
    expect(contents[0]!._meta?.working_attempt).toEqual({
      id,
      accepted: true,
      problem_id: started.attempt.problem_id,
    });
  });

  it("names the roles of the pinned contract in next_steps", async () => {
    const started = await call<{ next_steps: string[] }>(f.as(f.rival), "start_attempt", {
      problem: "graded",
    });
    const steps = started.next_steps.join("\n");
    expect(steps).toContain('"answer" (application/json, at most 64 bytes)');
    expect(steps).toContain('"proof"');
  });

  it("refuses a problem that is unknown, private to someone else or archived", async () => {
    expect(await refuse(f.as(f.solver), "start_attempt", { problem: "nope" })).toMatchObject({
      code: "not_found",
    });
    expect(await refuse(f.as(f.solver), "start_attempt", { problem: "secret" })).toMatchObject({
      code: "not_found",
    });
    expect(await refuse(f.as(f.solver), "start_attempt", { problem: "closed" })).toMatchObject({
      code: "problem_archived",
    });
    expect(await refuse(f.as(f.solver), "start_attempt", { problem: "free", revision: 9 })).toMatchObject({
      code: "not_found",
    });
    expect(await refuse(f.as(f.reader), "start_attempt", { problem: "free" })).toMatchObject({
      code: "forbidden",
    });
  });

  it("ends an attempt with a summary note, once", async () => {
    const id = await startOn(f.as(f.solver), "free");
    const missing = await refuse(f.as(f.solver), "end_attempt", { attempt_id: id, outcome: "solved" });
    expect(missing).toMatchObject({ code: "invalid_input", field: "note_md" });
    const blank = await refuse(f.as(f.solver), "end_attempt", {
      attempt_id: id,
      outcome: "solved",
      note_md: "  ",
    });
    expect(blank).toMatchObject({ code: "invalid_input", field: "note_md" });
    const wrong = await refuse(f.as(f.solver), "end_attempt", {
      attempt_id: id,
      outcome: "won",
      note_md: "x",
    });
    expect(wrong).toMatchObject({ code: "invalid_input", field: "outcome" });
    const ended = await call<{ attempt: AttemptRecord; note: { kind: string; body_md: string } }>(
      f.as(f.solver),
      "end_attempt",
      { attempt_id: id, outcome: "partial", note_md: "Halfway: the parser works." },
    );
    expect(ended.attempt).toMatchObject({ status: "ended", outcome: "partial" });
    expect(ended.note).toMatchObject({ kind: "summary", body_md: "Halfway: the parser works." });
    const again = await refuse(f.as(f.solver), "end_attempt", {
      attempt_id: id,
      outcome: "solved",
      note_md: "x",
    });
    expect(again).toMatchObject({ code: "attempt_ended", attempt_id: id });
    expect(
      await refuse(f.as(f.rival), "end_attempt", { attempt_id: id, outcome: "solved", note_md: "x" }),
    ).toMatchObject({
      code: "not_yours",
    });
  });

  it("continues an ended attempt and refuses every bad continuation with its code", async () => {
    const solver = f.as(f.solver);
    const first = await startOn(solver, "free");
    // 1. still_active while the predecessor runs.
    expect(
      await refuse(solver, "start_attempt", { problem: "free", continues_attempt_id: first }),
    ).toMatchObject({
      code: "still_active",
      field: "continues_attempt_id",
    });
    await call(solver, "add_note", { attempt_id: first, body_md: "Tried brute force." });
    await call(solver, "end_attempt", {
      attempt_id: first,
      outcome: "gave_up",
      note_md: "Brute force is too slow.",
    });
    // 2. not_found, not_yours, different_problem.
    expect(
      await refuse(solver, "start_attempt", {
        problem: "free",
        continues_attempt_id: "att_00000000000000000000",
      }),
    ).toMatchObject({ code: "not_found" });
    const rivals = await startOn(f.as(f.rival), "free");
    await call(f.as(f.rival), "end_attempt", { attempt_id: rivals, outcome: "abandoned", note_md: "Left." });
    expect(
      await refuse(solver, "start_attempt", { problem: "free", continues_attempt_id: rivals }),
    ).toMatchObject({
      code: "not_yours",
    });
    expect(
      await refuse(solver, "start_attempt", { problem: "graded", continues_attempt_id: first }),
    ).toMatchObject({
      code: "different_problem",
    });
    // 3. The continuation reports what the predecessor left.
    const second = await call<{ attempt: AttemptRecord; continues: Record<string, unknown> }>(
      solver,
      "start_attempt",
      {
        problem: "free",
        continues_attempt_id: first,
      },
    );
    expect(second.attempt.continues_attempt_id).toBe(first);
    expect(second.continues).toMatchObject({
      attempt_id: first,
      outcome: "gave_up",
      summary_note: { kind: "summary", body_md: "Brute force is too slow." },
      submissions: [],
    });
    // 4. already_continued names the successor.
    const twice = await refuse(solver, "start_attempt", { problem: "free", continues_attempt_id: first });
    expect(twice).toMatchObject({ code: "already_continued", successor_attempt_id: second.attempt.id });
    expect(twice.ended_at).toEqual(expect.any(String));
    // 5. The chain shows in list_attempts.
    const listed = await call<{ attempts: AttemptRecord[]; scope: string }>(solver, "list_attempts", {
      problem: "free",
    });
    expect(listed.scope).toBe("own");
    const byId = new Map(listed.attempts.map((a) => [a.id, a]));
    expect(byId.get(first)!.continued_by_attempt_id).toBe(second.attempt.id);
    expect(byId.get(second.attempt.id)!.continues_attempt_id).toBe(first);
    expect(listed.attempts.every((a) => !a.id.startsWith(rivals))).toBe(true);
  });

  it("lets exactly one of two racing continuations win", async () => {
    const solver = f.as(f.solver);
    const first = await startOn(solver, "free");
    await call(solver, "end_attempt", { attempt_id: first, outcome: "partial", note_md: "More to do." });
    const results = await Promise.all(
      [1, 2, 3].map(() => solver.callTool("start_attempt", { problem: "free", continues_attempt_id: first })),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    for (const loser of results.filter((r) => r.isError)) {
      expect(JSON.parse(loser.content[0]!.text!).error.code).toBe("already_continued");
    }
  });

  it("reads attempts: own, a manager's view, and refusals", async () => {
    const id = await startOn(f.as(f.solver), "graded");
    const got = await call<{ attempt: Record<string, unknown> }>(f.as(f.solver), "get_attempt", {
      attempt_id: id,
    });
    expect(got.attempt).toMatchObject({
      id,
      notes_count: 0,
      artifacts: [],
      submissions: [],
      summary_note: null,
    });
    expect(await refuse(f.as(f.rival), "get_attempt", { attempt_id: id })).toMatchObject({
      code: "not_yours",
    });
    expect((await call(f.as(f.owner), "get_attempt", { attempt_id: id })).attempt).toMatchObject({ id });
    expect((await call(f.as(f.admin), "get_attempt", { attempt_id: id })).attempt).toMatchObject({ id });
    const everyone = await call<{ attempts: AttemptRecord[]; scope: string }>(
      f.as(f.owner),
      "list_attempts",
      {
        problem: "graded",
      },
    );
    expect(everyone.scope).toBe("all");
    expect(everyone.attempts.map((a) => a.id)).toContain(id);
  });

  it("keeps an attempt on a private problem out of sight of others", async () => {
    const id = await startOn(f.as(f.owner), "secret");
    expect(await refuse(f.as(f.solver), "get_attempt", { attempt_id: id })).toMatchObject({
      code: "not_found",
    });
  });

  it("pages list_my_attempts newest first and filters by status", async () => {
    const client = f.as(f.admin);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await startOn(client, "free"));
    await call(client, "end_attempt", { attempt_id: ids[0], outcome: "abandoned", note_md: "Stale." });
    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await call<{ attempts: AttemptRecord[]; cursor: string | null }>(
        client,
        "list_my_attempts",
        {
          limit: 2,
          ...(cursor && { cursor }),
        },
      );
      seen.push(...page.attempts.map((a) => a.id));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const active = await call<{ attempts: AttemptRecord[] }>(client, "list_my_attempts", {
      status: "active",
    });
    expect(active.attempts.map((a) => a.id)).toEqual(ids.slice(1).reverse());
    const page = await call<{ cursor: string }>(client, "list_my_attempts", { limit: 1 });
    expect(
      await refuse(client, "list_my_attempts", { limit: 1, cursor: page.cursor, status: "ended" }),
    ).toMatchObject({ code: "invalid_input", field: "cursor" });
  });

  it("hints to start, then to pass the one active attempt, and summarises in get_problem", async () => {
    await seedProblem(f.services, { owner: f.owner.id, slug: "hinted", visibility: "listed" });
    const client = f.as(f.rival);
    const before = await call<{ hint: string; attempt_summary: Record<string, unknown> }>(
      client,
      "get_problem",
      {
        problem: "hinted",
      },
    );
    expect(before.hint).toContain("start_attempt");
    expect(before.attempt_summary).toMatchObject({ attempts: 0, active_attempts: 0, latest_attempt: null });
    const id = await startOn(client, "hinted");
    const during = await call<{ hint: string; attempt_summary: Record<string, unknown> }>(
      client,
      "get_problem",
      {
        problem: "hinted",
      },
    );
    expect(during.hint).toContain(`"working_attempt_id": "${id}"`);
    expect(during.attempt_summary).toMatchObject({
      attempts: 1,
      active_attempts: 1,
      active_attempt_ids: [id],
      latest_attempt: { id, status: "active" },
      submissions: 0,
      latest_verification: null,
    });
    const named = await call<Record<string, unknown>>(client, "get_problem", {
      problem: "hinted",
      working_attempt_id: id,
    });
    expect(named).not.toHaveProperty("hint");
    expect(named.working_attempt).toEqual({ id, accepted: true, problem_id: expect.any(String) });
    // A second active attempt: the start result hints at the first.
    const second = await call<{ hint: string }>(client, "start_attempt", { problem: "hinted" });
    expect(second.hint).toContain(id);
  });

  it("hints at the one active attempt on every read of a Problem and on its resource reads (spec 4.1)", async () => {
    const problem = await seedProblem(f.services, {
      owner: f.owner.id,
      slug: "hinted-everywhere",
      visibility: "listed",
      revision: {
        statement: "Read me.",
        bindings: [{ key: "notes", bytes: "public notes", filename: "notes.txt" }],
      },
    });
    const client = f.as(f.rival);
    const id = await startOn(client, "hinted-everywhere");
    const reads = ["list_my_attempts", "list_attempts", "list_submissions", "list_verifications"] as const;
    for (const name of reads) {
      const answer = await call<{ hint?: string }>(client, name, { problem: "hinted-everywhere" });
      expect(answer.hint, name).toContain(`"working_attempt_id": "${id}"`);
      const named = await call<Record<string, unknown>>(client, name, {
        problem: "hinted-everywhere",
        working_attempt_id: id,
      });
      expect(named, name).not.toHaveProperty("hint");
    }
    const uri = `svc://problem-revisions/${problem.revisionId}/reference/notes`;
    const [entry] = await client.readResource(uri);
    expect(entry!._meta?.hint).toContain(`"working_attempt_id": "${id}"`);
    const [named] = await client.readResource(`${uri}?working_attempt_id=${id}`);
    expect(named!._meta).not.toHaveProperty("hint");
    // Two active Attempts: the caller must choose, so no read hints at one.
    await call(client, "start_attempt", { problem: "hinted-everywhere" });
    expect(await call(client, "list_my_attempts", { problem: "hinted-everywhere" })).not.toHaveProperty(
      "hint",
    );
    const [either] = await client.readResource(uri);
    expect(either!._meta?.hint).toBeUndefined();
  });

  it("reports the working attempt outcome on every read tool: not_found, not_yours, ended", async () => {
    const mine = await startOn(f.as(f.solver), "free");
    const theirs = await startOn(f.as(f.rival), "free");
    const unknown = "att_zzzzzzzzzzzzzzzzzzzz";
    const outcome = async (id: string) =>
      (
        await call<{ working_attempt: unknown }>(f.as(f.solver), "search_problems", {
          working_attempt_id: id,
        })
      ).working_attempt;
    expect(await outcome(mine)).toMatchObject({ id: mine, accepted: true });
    expect(await outcome(theirs)).toEqual({ id: theirs, accepted: false, reason: "not_yours" });
    expect(await outcome(unknown)).toEqual({ id: unknown, accepted: false, reason: "not_found" });
    await call(f.as(f.solver), "end_attempt", { attempt_id: mine, outcome: "solved", note_md: "Done." });
    expect(await outcome(mine)).toMatchObject({ id: mine, accepted: false, reason: "ended" });
    // Read tools that do not declare it (the adapter adds it) report it too.
    const list = await call(f.as(f.solver), "list_my_attempts", { working_attempt_id: theirs });
    expect(list.working_attempt).toEqual({ id: theirs, accepted: false, reason: "not_yours" });
  });

  it("drops pick_problem's start hint once the caller has an active attempt", async () => {
    const fresh = f.as(f.reader);
    expect((await call(fresh, "pick_problem", {})).hint).toContain("start_attempt");
    expect((await call(f.as(f.rival), "pick_problem", {})).hint).toBeUndefined();
  });
});
