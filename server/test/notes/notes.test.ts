import { expect, it } from "vitest";
import { call, refuse, startOn, useSolvingFixture } from "../attempts/support/solving-fixture.ts";
import { describeWithDatabase } from "../support/test-database.ts";

interface Hit {
  id: string;
  body_md: string;
  score: number;
  matched: string[];
}

describeWithDatabase("notes", () => {
  const f = useSolvingFixture();
  let attempt: string;
  let other: string;

  const search = (args: Record<string, unknown>) =>
    call<{ notes: Hit[]; cursor: string | null }>(f.as(f.solver), "search_notes", args);

  it("adds notes to an active attempt and reads them back", async () => {
    attempt = await startOn(f.as(f.solver), "free");
    other = await startOn(f.as(f.solver), "graded");
    const bodies = [
      "The SAT solver timed out on the large instances after ten minutes.",
      "Unit propagation alone settles the small instances quickly.",
      "Parsing DIMACS headers: the p cnf line gives variables and clauses.",
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const { note } = await call<{ note: { id: string; kind: string } }>(f.as(f.solver), "add_note", {
        attempt_id: attempt,
        body_md: body,
      });
      expect(note.kind).toBe("note");
      ids.push(note.id);
    }
    await call(f.as(f.solver), "add_note", {
      attempt_id: other,
      body_md: "Graded problem: the solver output is JSON.",
    });
    const { note } = await call<{ note: { body_md: string } }>(f.as(f.solver), "get_note", {
      note_id: ids[0],
    });
    expect(note.body_md).toBe(bodies[0]);
    expect((await call(f.as(f.solver), "get_attempt", { attempt_id: attempt })).attempt).toMatchObject({
      notes_count: 3,
    });
  });

  it("refuses notes on someone else's, an unknown or an ended attempt, and empty or oversized bodies", async () => {
    expect(await refuse(f.as(f.rival), "add_note", { attempt_id: attempt, body_md: "x" })).toMatchObject({
      code: "not_yours",
    });
    expect(
      await refuse(f.as(f.solver), "add_note", { attempt_id: "att_00000000000000000000", body_md: "x" }),
    ).toMatchObject({ code: "not_found", field: "attempt_id" });
    expect(await refuse(f.as(f.solver), "add_note", { attempt_id: attempt, body_md: "" })).toMatchObject({
      code: "invalid_input",
      field: "body_md",
    });
    expect(
      await refuse(f.as(f.solver), "add_note", { attempt_id: attempt, body_md: "x".repeat(20001) }),
    ).toMatchObject({ code: "invalid_input", field: "body_md" });
    const ended = await startOn(f.as(f.solver), "free");
    await call(f.as(f.solver), "end_attempt", {
      attempt_id: ended,
      outcome: "abandoned",
      note_md: "Lost the thread.",
    });
    expect(await refuse(f.as(f.solver), "add_note", { attempt_id: ended, body_md: "late" })).toMatchObject({
      code: "attempt_ended",
    });
  });

  it("lets the owner's note be read by the problem's manager and nobody else", async () => {
    const { notes } = await search({ query: "propagation", mode: "keyword" });
    const id = notes[0]!.id;
    expect(await refuse(f.as(f.rival), "get_note", { note_id: id })).toMatchObject({ code: "not_yours" });
    expect((await call(f.as(f.owner), "get_note", { note_id: id })).note).toMatchObject({ id });
    expect(await refuse(f.as(f.solver), "get_note", { note_id: "nte_00000000000000000000" })).toMatchObject({
      code: "not_found",
    });
  });

  it("finds notes by keyword with stemming, only the caller's own", async () => {
    const { notes } = await search({ query: "instance", mode: "keyword" });
    expect(notes.map((n) => n.body_md).sort()).toEqual([
      "The SAT solver timed out on the large instances after ten minutes.",
      "Unit propagation alone settles the small instances quickly.",
    ]);
    expect(notes.every((n) => n.matched.join() === "keyword" && n.score > 0)).toBe(true);
    expect(
      (await call<{ notes: Hit[] }>(f.as(f.rival), "search_notes", { query: "instance" })).notes,
    ).toEqual([]);
  });

  it("finds notes semantically by trigram resemblance, misspellings included", async () => {
    const keyword = await search({ query: "propogation", mode: "keyword" });
    expect(keyword.notes).toEqual([]);
    const { notes } = await search({ query: "propogation", mode: "semantic" });
    expect(notes[0]!.body_md).toContain("Unit propagation");
    expect(notes[0]!.matched).toEqual(["semantic"]);
  });

  it("combines both methods and filters by problem or attempt", async () => {
    const both = await search({ query: "solver" });
    expect(both.notes.length).toBe(2);
    expect(both.notes[0]!.matched).toEqual(["keyword", "semantic"]);
    const graded = await search({ query: "solver", problem: "graded" });
    expect(graded.notes.map((n) => n.body_md)).toEqual(["Graded problem: the solver output is JSON."]);
    const inAttempt = await search({ query: "solver", attempt_id: attempt });
    expect(inAttempt.notes.map((n) => n.body_md)).toEqual([
      "The SAT solver timed out on the large instances after ten minutes.",
    ]);
    expect(
      await refuse(f.as(f.rival), "search_notes", { query: "solver", attempt_id: attempt }),
    ).toMatchObject({
      code: "not_yours",
    });
  });

  it("pages a ranking with a cursor bound to its query", async () => {
    const first = await search({ query: "instances", mode: "keyword", limit: 1 });
    expect(first.cursor).not.toBeNull();
    const second = await search({ query: "instances", mode: "keyword", limit: 1, cursor: first.cursor });
    expect(second.cursor).toBeNull();
    expect(second.notes[0]!.id).not.toBe(first.notes[0]!.id);
    expect(
      await refuse(f.as(f.solver), "search_notes", { query: "other", limit: 1, cursor: first.cursor }),
    ).toMatchObject({ code: "invalid_input", field: "cursor" });
  });
});
