import { beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import type { ProblemEnvelope } from "../../src/discovery/get-problem.ts";
import { findProblemRevision } from "../../src/problems/find-problem.ts";
import {
  contractDocument,
  type SeededProblem,
  type SeededUser,
  seedContract,
  seedProblem,
  seedRevision,
  seedSkillVersion,
  seedUser,
} from "../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { callToolAs, TEST_BASE_URL } from "./call-tool.ts";

const NOW = new Date("2030-03-01T12:00:00.400Z");

// get_problem serves a revision row it read once from the process's cache (problems/revision-cache.ts):
// what it serves must be what a fresh read gives, and whatever may change is read every call.
describeWithDatabase("get_problem's revision cache", () => {
  const db = useTestDatabase();
  let services: Services;
  let author: SeededUser;
  let solver: SeededUser;
  let contractId: string;
  let problem: SeededProblem;

  const getProblem = (caller: SeededUser, args: Record<string, unknown>) =>
    callToolAs<ProblemEnvelope>(services, caller, "get_problem", args);

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => NOW, baseUrl: TEST_BASE_URL });
    author = await seedUser(db.sql, "cache-author", { capabilities: ["author"] });
    solver = await seedUser(db.sql, "cache-solver", { scopes: ["read"] });
    const skillVersionId = await seedSkillVersion(services, {
      publisher: author.id,
      name: "cache-skill",
      files: { "SKILL.md": "---\nname: cache-skill\ndescription: A skill.\n---\n\n# Skill\n" },
    });
    contractId = await seedContract(
      db.sql,
      author.id,
      contractDocument([{ key: "instance" }, { key: "hidden", sealed: true }]),
    );
    problem = await seedProblem(services, {
      owner: author.id,
      slug: "cached-sat",
      visibility: "listed",
      revision: {
        statement: "Satisfy the cached instance.",
        skillRefs: [{ skill_version_id: skillVersionId, requirement: "required" }],
        verifierContractId: contractId,
        bindings: [
          { key: "instance", bytes: "p cnf 1 1\n1 0\n", filename: "instance.cnf" },
          { key: "hidden", bytes: "p cnf 1 1\n-1 0\n", filename: "hidden.cnf" },
        ],
      },
    });
  });

  it("serves a cached revision exactly as the fresh read served it", async () => {
    // The revision's id is new to this process, so the first read carries its row from PostgreSQL.
    const fresh = await getProblem(solver, { problem: "cached-sat" });
    const first = await findProblemRevision(db.sql, "cached-sat");
    const cached = await getProblem(solver, { problem: "cached-sat" });
    const again = await findProblemRevision(db.sql, "cached-sat");
    expect(again!.revision).toBe(first!.revision); // the very row: served from the cache
    expect(Object.isFrozen(again!.revision)).toBe(true);
    expect(cached).toEqual(fresh);
    expect(JSON.stringify(cached)).toBe(JSON.stringify(fresh)); // the same keys in the same order
    // By id too, and over /api: the same envelope.
    expect(await getProblem(solver, { problem: problem.problemId })).toEqual(fresh);
  });

  it("sees a new revision, a renamed Problem and a visibility change on the next call", async () => {
    const before = await getProblem(solver, { problem: "cached-sat" });
    const second = await seedRevision(services, problem.problemId, author.id, {
      statement: "Satisfy the revised instance.",
      verifierContractId: contractId,
      bindings: [{ key: "instance", bytes: "p cnf 1 1\n1 0\n", filename: "instance.cnf" }],
      changelog: "One input.",
    });
    const after = await getProblem(solver, { problem: "cached-sat" });
    expect(after.revision).toMatchObject({
      id: second,
      revision_number: 2,
      statement_md: "Satisfy the revised instance.",
      changelog_md: "One input.",
    });
    expect(after.problem.current_revision_id).toBe(second);
    expect(after.reference_resources.map((entry) => entry.key)).toEqual(["instance"]);
    // The first revision, asked for by number, is still the one it was.
    expect((await getProblem(solver, { problem: "cached-sat", revision: 1 })).revision).toEqual(
      before.revision,
    );

    await db.sql`update problems set title = 'Renamed while cached' where id = ${problem.problemId}`;
    expect((await getProblem(solver, { problem: "cached-sat" })).problem.title).toBe("Renamed while cached");

    await db.sql`update problems set visibility = 'private' where id = ${problem.problemId}`;
    await expect(getProblem(solver, { problem: "cached-sat" })).rejects.toMatchObject({ code: "not_found" });
    await expect(getProblem(solver, { problem: "cached-sat", revision: 1 })).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await getProblem(author, { problem: "cached-sat" })).problem.visibility).toBe("private");
    await db.sql`update problems set visibility = 'listed' where id = ${problem.problemId}`;
    expect((await getProblem(solver, { problem: "cached-sat" })).revision.id).toBe(second);
  });
});
