import { sha256 } from "@svc/app";
import { checkSchema } from "@svc/schemas";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../../src/core/services/services.ts";
import type { ProblemEnvelope } from "../../src/discovery/get-problem.ts";
import { type App, buildApp } from "../../src/edges/cli/build-app.ts";
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
const SKILL_MD = "---\nname: sat-basics\ndescription: How to read DIMACS CNF.\n---\n\n# SAT basics\n";
const NOTES = "Clauses end with 0.\n";
const INSTANCE = "p cnf 3 2\n1 -2 0\n2 3 0\n";
const SECRET_INSTANCE = "p cnf 1 1\n1 0\n";

describeWithDatabase("get_problem", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: App;
  let author: SeededUser;
  let solver: SeededUser;
  let skillVersionId: string;
  let contractId: string;
  let sat: SeededProblem;

  const getProblem = (caller: SeededUser, args: Record<string, unknown>) =>
    callToolAs<ProblemEnvelope>(services, caller, "get_problem", args);

  /** GETs an absolute download URL through the app, optionally with a bearer. */
  const fetchUrl = (url: string, token?: string) =>
    app.inject({
      method: "GET",
      url: new URL(url).pathname,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  beforeAll(async () => {
    services = testServices(db.sql, { clock: () => NOW, baseUrl: TEST_BASE_URL });
    app = buildApp(services);
    author = await seedUser(db.sql, "envelope-author", { capabilities: ["author"] });
    solver = await seedUser(db.sql, "envelope-solver", { scopes: ["read"] });
    skillVersionId = await seedSkillVersion(services, {
      publisher: author.id,
      name: "sat-basics",
      files: { "SKILL.md": SKILL_MD, "notes/clauses.md": NOTES },
    });
    contractId = await seedContract(
      db.sql,
      author.id,
      contractDocument([
        { key: "instance" },
        { key: "hidden", sealed: true },
        { key: "mirror", required: false },
      ]),
    );
    sat = await seedProblem(services, {
      owner: author.id,
      slug: "small-sat",
      title: "A small SAT instance",
      visibility: "listed",
      revision: {
        statement: "Satisfy the instance.",
        skillRefs: [{ skill_version_id: skillVersionId, requirement: "required" }],
        verifierContractId: contractId,
        bindings: [
          { key: "instance", bytes: INSTANCE, filename: "instance.cnf" },
          { key: "hidden", bytes: SECRET_INSTANCE, filename: "hidden.cnf" },
          {
            key: "mirror",
            link: {
              url: "https://data.example.org/instance.cnf",
              content_hash: sha256("remote"),
              size_bytes: 6,
              media_type: "text/plain",
              filename: "instance.cnf",
            },
          },
        ],
        sealing: {
          sealed_until: "2031-01-01T00:00:00Z",
          submission_closes_at: null,
          score_release: { mode: "immediate", release_at: null },
          submission_limit: { max_submissions: 3, window_hours: 24 },
          unsealed_at: null,
          release_event: null,
          entries: "collaborative",
          evaluation_id: `sev_${"a".repeat(32)}`,
        },
      },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it("returns the envelope with exactly the spec's keys, by id and by slug alike", async () => {
    const byId = await getProblem(solver, { problem: sat.problemId });
    const bySlug = await getProblem(solver, { problem: "small-sat", working_attempt_id: "att_0123456789" });
    expect(bySlug).toEqual(byId);
    expect(Object.keys(byId)).toEqual([
      "problem",
      "revision",
      "skill_resources",
      "reference_resources",
      "attempt_summary",
      "submission_allowance",
      "hint",
    ]);
    expect(byId.attempt_summary).toEqual({
      attempts: 0,
      active_attempts: 0,
      active_attempt_ids: [],
      latest_attempt: null,
      submissions: 0,
      latest_verification: null,
    });
    // The revision is sealed: the caller's quota on its evaluation (docs/sealing.md).
    expect(byId.submission_allowance).toEqual({
      evaluation_id: `sev_${"a".repeat(32)}`,
      limit: { max_submissions: 3, window_hours: 24 },
      used: 0,
      remaining: 3,
      next_reset_at: null,
      submission_closes_at: null,
    });
    expect(byId.hint).toContain("start_attempt");
    expect(byId.hint).toContain(sat.problemId);
  });

  it("gives the canonical ProblemRevision: valid against its schema, no extra fields", async () => {
    const { revision, problem } = await getProblem(solver, { problem: "small-sat" });
    const check = checkSchema("problem-revision", revision);
    expect(check.issues).toEqual([]);
    expect(revision).toMatchObject({ id: sat.revisionId, problem_id: sat.problemId, revision_number: 1 });
    expect(problem).toMatchObject({
      id: sat.problemId,
      current_revision_id: sat.revisionId,
      current_revision_number: 1,
      visibility: "listed",
      campaign_id: null,
      campaign_slug: null,
    });
    expect(JSON.stringify({ problem, revision })).not.toContain("svc://");
    expect(JSON.stringify({ problem, revision })).not.toContain("/dl/");
  });

  it("lists every skill file with a resource URI and a signed 15-minute link", async () => {
    const { skill_resources } = await getProblem(solver, { problem: "small-sat" });
    expect(skill_resources).toHaveLength(1);
    const [skill] = skill_resources;
    expect(skill).toMatchObject({
      skill_version_id: skillVersionId,
      requirement: "required",
      entry_uri: `svc://skill-versions/${skillVersionId}/SKILL.md`,
      manifest_uri: `svc://skill-versions/${skillVersionId}/`,
      content_hash: sha256(SKILL_MD),
      size_bytes: Buffer.byteLength(SKILL_MD),
      expires_at: "2030-03-01T12:15:00.000Z",
    });
    expect(skill!.download_url).toMatch(/^http:\/\/svc\.test\/dl\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(skill!.files.map((f) => [f.path, f.resource_uri])).toEqual([
      ["SKILL.md", `svc://skill-versions/${skillVersionId}/SKILL.md`],
      ["notes/clauses.md", `svc://skill-versions/${skillVersionId}/notes/clauses.md`],
    ]);
    // 1. Every file's link serves exactly its bytes, with the hash in x-svc-content-hash.
    for (const [file, text] of [
      [skill!.files[0]!, SKILL_MD],
      [skill!.files[1]!, NOTES],
    ] as const) {
      const response = await fetchUrl(file.download_url!);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(text);
      expect(response.headers["x-svc-content-hash"]).toBe(sha256(text));
      expect(response.headers["content-type"]).toBe("text/markdown");
      expect(sha256(response.rawPayload)).toBe(file.content_hash);
    }
  });

  it("gives public inputs links, a linked input its url, and a sealed input metadata only", async () => {
    const { reference_resources } = await getProblem(solver, { problem: "small-sat" });
    const [instance, hidden, mirror] = reference_resources;
    expect(instance).toMatchObject({
      key: "instance",
      media_type: "text/plain",
      size_bytes: Buffer.byteLength(INSTANCE),
      content_hash: sha256(INSTANCE),
      resource_uri: `svc://problem-revisions/${sat.revisionId}/reference/instance`,
      expires_at: "2030-03-01T12:15:00.000Z",
      sealed: false,
      sealed_until: null,
    });
    const response = await fetchUrl(instance!.download_url!);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INSTANCE);
    expect(response.headers["x-svc-content-hash"]).toBe(sha256(INSTANCE));
    expect(response.headers["content-type"]).toBe("text/plain");

    expect(hidden).toEqual({
      key: "hidden",
      media_type: "text/plain",
      size_bytes: Buffer.byteLength(SECRET_INSTANCE),
      content_hash: sha256(SECRET_INSTANCE),
      sealed: true,
      sealed_until: "2031-01-01T00:00:00Z",
    });
    expect(mirror).toEqual({
      key: "mirror",
      media_type: "text/plain",
      size_bytes: 6,
      content_hash: sha256("remote"),
      resource_uri: `svc://problem-revisions/${sat.revisionId}/reference/mirror`,
      sealed: false,
      sealed_until: null,
      url: "https://data.example.org/instance.cnf",
    });
  });

  it("omits the sealed input's links for its manager too", async () => {
    const { reference_resources } = await getProblem(author, { problem: "small-sat" });
    expect(reference_resources[1]).not.toHaveProperty("download_url");
    expect(reference_resources[1]).not.toHaveProperty("resource_uri");
  });

  it("reads an earlier revision by number, and refuses one that does not exist", async () => {
    const second = await seedRevision(services, sat.problemId, author.id, {
      statement: "Satisfy the instance, revised.",
      verifierContractId: contractId,
      bindings: [{ key: "instance", bytes: INSTANCE, filename: "instance.cnf" }],
      changelog: "Simpler.",
    });
    const current = await getProblem(solver, { problem: "small-sat" });
    expect(current.revision).toMatchObject({ id: second, revision_number: 2, changelog_md: "Simpler." });
    expect(current.problem.current_revision_number).toBe(2);
    const first = await getProblem(solver, { problem: "small-sat", revision: 1 });
    expect(first.revision.id).toBe(sat.revisionId);
    await expect(getProblem(solver, { problem: "small-sat", revision: 9 })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("answers not_found for an unknown id or slug, never a guess", async () => {
    for (const problem of ["small-sa", "prb_doesnotexist00", "SMALL-SAT"]) {
      await expect(getProblem(solver, { problem })).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("gives no start_attempt hint on an archived problem", async () => {
    await seedProblem(services, { owner: author.id, slug: "old-sat", visibility: "listed", archived: true });
    const envelope = await getProblem(solver, { problem: "old-sat" });
    expect(envelope.problem.status).toBe("archived");
    expect(envelope).not.toHaveProperty("hint");
  });

  it("serves the same envelope at GET /api/problems/{id-or-slug}", async () => {
    const response = await app.inject({
      method: "GET",
      url: "/api/problems/small-sat?revision=1",
      headers: { authorization: `Bearer ${solver.token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(await getProblem(solver, { problem: "small-sat", revision: 1 }));
  });
});
