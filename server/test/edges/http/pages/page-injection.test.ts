import { randomBytes } from "node:crypto";
import { IdPrefix } from "@svc/schemas";
import { type DefaultTreeAdapterMap, parse } from "parse5";
import { afterAll, beforeAll, expect, it } from "vitest";
import { randomId } from "../../../../src/core/ids/random-id.ts";
import type { Services } from "../../../../src/core/services/services.ts";
import { startReviewProcess } from "../../../../src/reviews/start-review-process.ts";
import { fixtureNode, fixtureProtocol, openNode } from "../../../reviews/surface/support/review-fixture.ts";
import {
  contractDocument,
  type SeededUser,
  seedContract,
  seedProblem,
  seedProtocol,
  seedUser,
} from "../../../support/seed-records.ts";
import { describeWithDatabase, useTestDatabase } from "../../../support/test-database.ts";
import { testServices } from "../../../support/test-services.ts";
import { type RunningApp, startApp } from "../../mcp/support/start-app.ts";

/** Markup, both quotes and an entity: whatever a page does with it, it must show it as text. */
const EVIL = `<img src=x onerror=alert(1)>"'&<script>`;
const EVIL_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;";
/** The same payload as rendered Markdown escapes it (sanitize-html leaves quotes in text as they are). */
const EVIL_MARKDOWN = "&lt;img src=x onerror=alert(1)&gt;\"'&amp;&lt;script&gt;";

/** Every element and attribute the pages emit themselves; anything else came from data. */
const PAGE_TAGS = new Set(
  [
    "html head meta title style body h1 h2 h3 p code table tbody tr th td pre section span a",
    // The site's frame, and the response form on a held seat and the Claim button.
    "header nav main footer div ul li strong form input fieldset legend label select option textarea button",
    // The bundle folded under a summary; the run page's check-it-yourself fields break their labels.
    "details summary br",
  ]
    .join(" ")
    .split(" "),
);
const PAGE_ATTRIBUTES = new Set([
  "lang",
  "charset",
  "name",
  "content",
  "class",
  "data-testid",
  "data-stage",
  "href",
  "id",
  "for",
  "role",
  "rel",
  "aria-labelledby",
  "aria-label",
  "aria-current",
  "method",
  "action",
  "type",
  "value",
  "selected",
  "rows",
  "maxlength",
  "min",
  "max",
  "step",
  "required",
  "minlength",
  "readonly",
]);

type Element = DefaultTreeAdapterMap["element"];
type Node = DefaultTreeAdapterMap["node"];

function elementsOf(node: Node, out: Element[] = []): Element[] {
  if ("tagName" in node) out.push(node);
  const children = "content" in node && node.content ? node.content.childNodes : [];
  for (const child of [...("childNodes" in node ? node.childNodes : []), ...children]) elementsOf(child, out);
  return out;
}

function textOf(node: Node): string {
  if (node.nodeName === "#text") return (node as DefaultTreeAdapterMap["textNode"]).value;
  return "childNodes" in node ? node.childNodes.map(textOf).join("") : "";
}

/**
 * A page as a browser would build it, checked for injection: only the page's own elements and
 * attributes, links only to http(s) or this service, the raw payload nowhere in the bytes and its
 * escaped form present, the payload back as text at least `times` times (one per field seeded),
 * and the security headers.
 */
function expectInert(response: { headers: Headers; body: string }, times: number) {
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  const policy = response.headers.get("content-security-policy") ?? "";
  for (const directive of [
    "default-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ])
    expect(policy).toContain(directive);
  expect(policy).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");

  expect(response.body).not.toContain(EVIL);
  expect(response.body).not.toMatch(/<img|<script/i);
  if (times > 0)
    expect([EVIL_ESCAPED, EVIL_MARKDOWN].some((form) => response.body.includes(form))).toBe(true);
  const document = parse(response.body);
  const elements = elementsOf(document);
  expect(elements.map((e) => e.tagName).filter((tag) => !PAGE_TAGS.has(tag))).toEqual([]);
  const attributes = elements.flatMap((e) => e.attrs.map((a) => a.name));
  expect(attributes.filter((name) => !PAGE_ATTRIBUTES.has(name))).toEqual([]);
  for (const a of elements.filter((e) => e.tagName === "a"))
    expect(a.attrs.find((attr) => attr.name === "href")?.value).toMatch(/^(https?:\/\/|\/|#main$)/);
  const text = textOf(document);
  expect(text.split(EVIL).length - 1).toBeGreaterThanOrEqual(times);
  return { elements, text };
}

const byTestId = (elements: Element[], id: string) =>
  elements.find((e) => e.attrs.some((a) => a.name === "data-testid" && a.value === id));

/**
 * Every page over real HTTP, with the payload in every user-controlled string the page shows:
 * Problem title, summary and statement, node title, rubric instructions, artifact filenames,
 * roles, media types and text, a large artifact's preview, rationale, citations, response,
 * assistance; a run's evidence, revocation reason, stage keys, backend, implementation and
 * evidence hash. Slugs, handles and ids cannot hold it: the database refuses their format.
 */
describeWithDatabase("pages escape every field", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let owner: SeededUser;
  let submitter: SeededUser;
  let alice: SeededUser;
  let bob: SeededUser;
  let processId: string;
  let runId: string;
  let aliceAssignment: string;
  let bobAssignment: string;
  const now = new Date();

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    const { sql, blobs } = services;
    owner = await seedUser(sql, "evil-owner", { scopes: ["read", "contribute"] });
    submitter = await seedUser(sql, "evil-submitter", { scopes: ["read", "contribute"] });
    alice = await seedUser(sql, "evil-alice", { scopes: ["read", "contribute"] });
    bob = await seedUser(sql, "evil-bob", { scopes: ["read", "contribute"] });
    const contractId = await seedContract(sql, owner.id, contractDocument());
    const problem = await seedProblem(services, {
      owner: owner.id,
      slug: "evil-problem",
      title: EVIL,
      summary: EVIL,
      visibility: "unlisted",
      revision: { statement: EVIL, verifierContractId: contractId },
    });
    const protocolId = await seedProtocol(
      sql,
      owner.id,
      "evil-protocol",
      fixtureProtocol([fixtureNode("readers", { title: EVIL, instructions: EVIL })]),
    );

    // 1. A Submission of three artifacts: small text, large text (previewed), a non-text type.
    const artifacts = [
      { role: EVIL, filename: EVIL, media_type: "text/markdown", bytes: Buffer.from(EVIL) },
      {
        role: "large",
        filename: `${EVIL}.txt`,
        media_type: "text/plain",
        bytes: Buffer.from(EVIL.repeat(600)),
      },
      { role: "binary", filename: "b.bin", media_type: `application/x-${EVIL}`, bytes: randomBytes(64) },
    ];
    const attemptId = randomId(IdPrefix.attempt);
    await sql`
      insert into attempts (id, problem_id, problem_revision_id, user_id)
      values (${attemptId}, ${problem.problemId}, ${problem.revisionId}, ${submitter.id})`;
    const refs = [];
    for (const artifact of artifacts) {
      const stored = await blobs.put(artifact.bytes);
      const id = randomId(IdPrefix.artifact);
      await sql`
        insert into artifacts (id, attempt_id, user_id, filename, media_type, content_hash, size_bytes)
        values (${id}, ${attemptId}, ${submitter.id}, ${artifact.filename}, ${artifact.media_type},
          ${stored.content_hash}, ${stored.size_bytes})`;
      refs.push({
        role: artifact.role,
        artifact_id: id,
        content_hash: stored.content_hash,
        size_bytes: stored.size_bytes,
      });
    }
    const submissionId = randomId(IdPrefix.submission);
    await sql`
      insert into submissions (id, attempt_id, user_id, problem_id, problem_revision_id, artifacts)
      values (${submissionId}, ${attemptId}, ${submitter.id}, ${problem.problemId}, ${problem.revisionId},
        ${sql.json(refs)})`;

    // 2. A finished, revoked run whose every free-text field is the payload.
    runId = randomId(IdPrefix.verificationRun);
    await sql`
      insert into verification_runs (id, submission_id, problem_revision_id, verifier_contract_id, trigger, inputs,
        status, result, evidence_md, started_at, finished_at, revocation)
      values (${runId}, ${submissionId}, ${problem.revisionId}, ${contractId}, 'submission',
        ${sql.json({ artifacts: refs, summary_included: false })}, 'finished', 'refuted', ${EVIL}, ${now}, ${now},
        ${sql.json({ revoked_at: now.toISOString(), revoked_by_user_id: owner.id, reason_md: EVIL })})`;
    const log = {
      content_hash: `sha256:${"0".repeat(64)}`,
      size_bytes: 3,
      truncated: false,
      redaction: null,
    };
    await sql`
      insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, result,
        evidence_md, mechanism, log, started_at, finished_at)
      values (${runId}, 0, ${EVIL}, 'sandbox', 'finished', 'refuted', ${EVIL},
        ${sql.json({
          sandbox: {
            verifier_implementation_id: EVIL,
            implementation_content_hash: EVIL,
            runtime_image_digest: EVIL,
            backend: EVIL,
            exit_code: 1,
            duration_ms: 5,
            evidence_hash: EVIL,
          },
          review: null,
          external: null,
        })}, ${sql.json(log)}, ${now}, ${now})`;

    // 3. A review over the Submission: alice submitted a judgment made of payloads, bob holds a seat.
    processId = await startReviewProcess(sql, now, {
      review_protocol_id: protocolId,
      subject_kind: "submission",
      subject_id: submissionId,
      subject_user_id: submitter.id,
      subject_organization_id: null,
      problem_id: problem.problemId,
      problem_revision_id: problem.revisionId,
      campaign_id: null,
    });
    await openNode(services, processId, "readers", now);
    aliceAssignment = randomId(IdPrefix.reviewAssignment);
    bobAssignment = randomId(IdPrefix.reviewAssignment);
    const hold = new Date(now.getTime() + 120 * 60_000);
    await sql`
      insert into review_assignments (id, review_process_id, node_id, reviewer_kind, reviewer_user_id, status,
        claimed_at, hold_until, ended_at, response, rationale_md, citations, confidence, assistance)
      values (${aliceAssignment}, ${processId}, 'readers', 'human', ${alice.id}, 'submitted', ${now}, ${hold}, ${now},
        ${sql.json({ verdict: EVIL })}, ${EVIL}, ${sql.json([{ artifact: EVIL, quote: EVIL }])}, 0.5,
        ${sql.json({ provider: EVIL, model: EVIL, config: null })})`;
    await sql`
      insert into review_assignments (id, review_process_id, node_id, reviewer_kind, reviewer_user_id, status,
        claimed_at, hold_until)
      values (${bobAssignment}, ${processId}, 'readers', 'human', ${bob.id}, 'claimed', ${now}, ${hold})`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  async function page(user: SeededUser, path: string) {
    const response = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(response.status, path).toBe(200);
    return { headers: response.headers, body: await response.text() };
  }

  it("1. shows the run page's payloads as text: evidence, revocation, stage key, mechanism", async () => {
    const { elements } = expectInert(await page(owner, `/verifications/${runId}`), 6);
    expect(textOf(byTestId(elements, "evidence")!).trim()).toBe(EVIL);
    expect(textOf(byTestId(elements, "revocation")!)).toContain(EVIL);
    const stage = elements.find((e) => e.tagName === "section")!;
    expect(stage.attrs.find((a) => a.name === "data-stage")?.value).toBe(EVIL);
    expect(textOf(stage.childNodes.find((n) => n.nodeName === "h3")!)).toContain(EVIL);
  });

  it("2. shows the case page's payloads as text: node title, instructions, every material", async () => {
    const { elements, text } = expectInert(await page(bob, `/reviews/${processId}/nodes/readers`), 5);
    expect(textOf(byTestId(elements, "instructions")!).trim()).toBe(EVIL);
    expect(elements.filter((e) => e.tagName === "p").map(textOf)).toContain(EVIL); // the node title
    const headings = elements.filter((e) => e.tagName === "h3").map(textOf);
    expect(headings.filter((h) => h.includes(`: ${EVIL}`))).toHaveLength(2); // the small and the large artifact
    expect(text).toContain(`application/x-${EVIL}`);
    expect(text).toContain(`${EVIL}${EVIL}`); // the large artifact's preview
    expect(textOf(byTestId(elements, "bundle")!)).toContain(JSON.stringify(EVIL).slice(1, -1));
  });

  it("3. shows the assignment page's payloads as text: response, rationale, citations, assistance", async () => {
    const { elements } = expectInert(await page(alice, `/review-assignments/${aliceAssignment}`), 1);
    expect(textOf(byTestId(elements, "rationale")!).trim()).toBe(EVIL);
    const json = JSON.stringify(EVIL).slice(1, -1);
    expect(textOf(byTestId(elements, "response")!)).toContain(json);
    expect(textOf(byTestId(elements, "citations")!)).toContain(json);
    expect(
      elements
        .filter((e) => e.tagName === "pre")
        .map(textOf)
        .join(""),
    ).toContain(`"provider": ${JSON.stringify(EVIL)}`);
  });

  it("4. shows the bundle on a held seat's assignment page as text", async () => {
    const { elements } = expectInert(await page(bob, `/review-assignments/${bobAssignment}`), 0);
    expect(textOf(byTestId(elements, "bundle")!)).toContain(JSON.stringify(EVIL).slice(1, -1));
    expect(byTestId(elements, "response-form")).toBeDefined();
    expect(byTestId(elements, "response-form")).toBeDefined();
  });
});
