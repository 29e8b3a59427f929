import { expect, it } from "vitest";
import { publishAuthoringUpload } from "../../src/authoring/publish-authoring-upload.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { builtinsOnly, testServices } from "../support/test-services.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  publishFiles,
  uploadAndValidate,
} from "./support/authoring-harness.ts";

const SKILL = "---\nname: essay-reading\ndescription: How to read an essay closely.\n---\n\n# Reading\n";

/** valid-review with a local skill its reviewers use. */
function reviewWithSkill(): Files {
  const files = editJson(fixturePackage("valid-review"), "review-protocol.json", (protocol) => {
    const nodes = protocol.nodes as Array<Record<string, unknown>>;
    nodes[0]!.skills = [{ skill_version_id: "./skills/essay-reading", requirement: "required" }];
  });
  return { ...files, "skills/essay-reading/SKILL.md": SKILL };
}

describeWithDatabase("the records a publication creates", () => {
  const db = useTestDatabase();

  it("pins a local skill as a SkillVersion whose files are in the blob store, and reference bytes too", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const author = await newAuthor(db.sql);
    const result = await publishFiles(services, author, fixturePackage("valid-skill"));
    expect(result.validation.images).toEqual([
      {
        image_ref: "svc-builtin/sat-assignment-check:1",
        image_digest: expect.stringMatching(/^sha256:/),
        state: "available",
      },
    ]);
    const [version] = await db.sql`select * from skill_versions where id = ${result.skill_version_ids[0]!}`;
    expect(version).toMatchObject({
      name: "sat-basics",
      version_number: 1,
      created_by_user_id: author.user.id,
    });
    expect(version!.files).toEqual([
      {
        path: "SKILL.md",
        content_hash: expect.any(String),
        size_bytes: expect.any(Number),
        media_type: "text/markdown",
      },
    ]);
    expect(await services.blobs.has(version!.files[0].content_hash)).toBe(true);
    const [revision] =
      await db.sql`select * from problem_revisions where id = ${result.problems[0]!.problem_revision_id}`;
    expect(revision!.skill_refs).toEqual([{ skill_version_id: version!.id, requirement: "required" }]);
    expect(revision!.verifier_input_bindings).toEqual([
      {
        key: "instance",
        content_hash: expect.stringMatching(/^sha256:/),
        size_bytes: expect.any(Number),
        media_type: "text/plain",
        filename: "instance.cnf",
      },
    ]);
    expect(await services.blobs.has(revision!.verifier_input_bindings[0].content_hash)).toBe(true);

    // 2. A changed SKILL.md is version 2 of the same skill, and a revise of the problem.
    const changed = {
      ...fixturePackage("valid-skill"),
      "skills/sat-basics/SKILL.md":
        "---\nname: sat-basics\ndescription: How to read DIMACS CNF, carefully.\n---\n",
    };
    const again = await publishFiles(services, author, changed);
    expect(again.problems[0]).toMatchObject({ action: "revise", revision_number: 2 });
    const versions = await db.sql`
      select v.version_number, s.name from skill_versions v join skills s on s.id = v.skill_id
      where s.publisher_user_id = ${author.user.id} order by v.version_number`;
    expect(versions.map((v) => [v.name, v.version_number])).toEqual([
      ["sat-basics", 1],
      ["sat-basics", 2],
    ]);
  });

  it("publishes a review protocol with its skill's published id, and the contract pinning the protocol's id", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const author = await newAuthor(db.sql);
    const result = await publishFiles(services, author, reviewWithSkill());
    expect(result.review_protocol_ids).toHaveLength(1);
    const [protocol] =
      await db.sql`select * from review_protocols where id = ${result.review_protocol_ids[0]!}`;
    expect(protocol!.slug).toBe("two-independent-reviewers");
    expect(protocol!.document.nodes[0].skills).toEqual([
      { skill_version_id: result.skill_version_ids[0], requirement: "required" },
    ]);
    const [contract] =
      await db.sql`select * from verifier_contracts where id = ${result.verifier_contract_ids[0]!}`;
    expect(contract!.document.stages[0].review_protocol_id).toBe(protocol!.id);
    expect(result.verifier_implementation_ids).toEqual([]);

    // 2. Another author's identical protocol is theirs, under the same slug; a changed protocol
    // with the same title gets a slug of its own, and revises the problem through its contract.
    const other = await newAuthor(db.sql);
    const theirs = await publishFiles(
      services,
      other,
      editJson(reviewWithSkill(), "problem.json", (p) => {
        p.slug = "two-reviewers-again";
      }),
    );
    expect(theirs.review_protocol_ids[0]).not.toBe(protocol!.id);
    const [theirProtocol] =
      await db.sql`select slug from review_protocols where id = ${theirs.review_protocol_ids[0]!}`;
    expect(theirProtocol!.slug).toBe("two-independent-reviewers");
    const changed = editJson(reviewWithSkill(), "review-protocol.json", (p) => {
      (p.nodes as Array<Record<string, unknown>>)[0]!.title = "Readers, again";
    });
    const second = await publishFiles(services, author, changed);
    expect(second.problems[0]).toMatchObject({ action: "revise", revision_number: 2 });
    const [secondProtocol] =
      await db.sql`select slug from review_protocols where id = ${second.review_protocol_ids[0]!}`;
    expect(secondProtocol!.slug).toBe("two-independent-reviewers-2");
  });

  it("keeps a linked binding's url and stores no bytes for it", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const author = await newAuthor(db.sql);
    let files = editJson(fixturePackage("valid-linked-binding"), "problem.json", (p) => {
      p.slug = "linked-sat";
    });
    // The conformance fixture's instance.cnf is stored (fixtures are); a link stating other bytes
    // shows that the binding itself stores nothing.
    files = editJson(files, "reference/instance.link.json", (link) => {
      link.content_hash = `sha256:${"5".repeat(64)}`;
    });
    const result = await publishFiles(services, author, files);
    const [revision] =
      await db.sql`select verifier_input_bindings from problem_revisions where id = ${result.problems[0]!.problem_revision_id}`;
    const [binding] = revision!.verifier_input_bindings;
    expect(binding).toMatchObject({
      key: "instance",
      url: "https://data.example.org/instance.cnf",
      filename: "instance.cnf",
    });
    expect(await services.blobs.has(binding.content_hash)).toBe(false);
  });

  it("records the authored sealing policy with the derived fields the service supplies", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const author = await newAuthor(db.sql);
    const files = editJson(fixturePackage("valid-sealed"), "problem.json", (p) => {
      p.slug = "sealed-sat";
    });
    const result = await publishFiles(services, author, files);
    const [revision] =
      await db.sql`select sealing from problem_revisions where id = ${result.problems[0]!.problem_revision_id}`;
    expect(revision!.sealing).toEqual({
      sealed_until: "2099-01-01T00:00:00Z",
      submission_closes_at: "2098-06-01T00:00:00Z",
      score_release: { mode: "final_only", release_at: "2098-07-01T00:00:00Z" },
      submission_limit: { max_submissions: 2, window_hours: 24 },
      entries: "collaborative",
      unsealed_at: null,
      release_event: null,
      evaluation_id: expect.stringMatching(/^sev_[0-9a-f]{32}$/),
    });
  });

  it("reports a script runtime as unbound, and refuses unknown published ids as not_found", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const author = await newAuthor(db.sql);
    const script = await uploadAndValidate(services, author, fixturePackage("valid-script"));
    expect(script.images).toEqual([
      {
        image_ref: "svc-runtime/python:1",
        image_digest: expect.stringMatching(/^sha256:/),
        state: "unbound",
      },
    ]);
    const files = fixturePackage("valid-script");
    delete files["verifier-contract.json"];
    delete files["checker.py"];
    const pinned = editJson(files, "problem.json", (p) => {
      p.slug = "pins-unknown";
      p.verifier_contract = "vct_00000000000000000000";
      p.skills = ["skv_00000000000000000000"];
    });
    const validation = await uploadAndValidate(services, author, pinned);
    expect(validation.valid).toBe(false);
    expect(validation.errors).toEqual([
      expect.objectContaining({ file: "problem.json", path: "/verifier_contract", code: "not_found" }),
      expect.objectContaining({ file: "problem.json", path: "/skills/0", code: "not_found" }),
    ]);
    await expect(
      publishAuthoringUpload(services, author, {
        upload_id: validation.upload_id,
        plan_hash: validation.plan_hash!,
      }),
    ).rejects.toMatchObject({ code: "upload_invalid", details: { errors: validation.errors } });
  });

  it("a standalone problem may join its author's existing campaign, and no one else's", async () => {
    const services = testServices(db.sql, { sandbox: builtinsOnly() });
    const author = await newAuthor(db.sql);
    const campaign = await publishFiles(services, author, fixturePackage("valid-campaign"));
    const joining = editJson(fixturePackage("valid-script"), "problem.json", (p) => {
      p.slug = "joins-campaign";
      p.campaign = "integer-root-campaign";
    });
    const joined = await publishFiles(services, author, joining);
    const [problem] =
      await db.sql`select campaign_id, visibility from problems where id = ${joined.problems[0]!.problem_id}`;
    expect(problem).toEqual({ campaign_id: campaign.campaign_id, visibility: "listed" });
    expect(joined.problems[0]).toMatchObject({ visibility: "private", listed_in_explore: false });

    const stranger = await newAuthor(db.sql);
    const intruding = editJson(joining, "problem.json", (p) => {
      p.slug = "intrudes-campaign";
    });
    const refused = await uploadAndValidate(services, stranger, intruding);
    expect(refused.reconciliation?.problems[0]).toMatchObject({
      action: "conflict",
      reason: expect.stringContaining("belongs to another user"),
    });
    const missing = editJson(joining, "problem.json", (p) => {
      p.slug = "names-missing-campaign";
      p.campaign = "no-such-campaign";
    });
    const absent = await uploadAndValidate(services, author, missing);
    expect(absent.reconciliation?.problems[0]).toMatchObject({
      action: "conflict",
      reason: expect.stringContaining("does not exist"),
    });
  });
});
