import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** A random-looking but reproducible 3-SAT instance of `vars` variables. */
function instance(seed: number, vars: number, clauses: number): string {
  let x = seed * 2654435761;
  const next = () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return x;
  };
  const lines = [`p cnf ${vars} ${clauses}`];
  for (let c = 0; c < clauses; c++) {
    const lits = Array.from({ length: 3 }, () => ((next() % vars) + 1) * (next() % 2 ? 1 : -1));
    lines.push(`${lits.join(" ")} 0`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The conformance fixture's instance: instance(0, 20, 60) with each clause's first literal made
 * positive, and one clause of positive literals only, so the `good` fixture (every variable true)
 * satisfies it and the `bad` one (every variable false) does not, as the checker's own
 * conformance run requires (svc draft exits 3 when a checker fails its fixtures).
 */
function fixtureInstance(): string {
  const [header, ...clauses] = instance(0, 20, 60).trim().split("\n");
  const positiveFirst = clauses.map((clause) => clause.replace(/^-/, ""));
  return `${[header!.replace(/ 60$/, " 61"), ...positiveFirst, "1 2 3 0"].join("\n")}\n`;
}

/**
 * Writes a campaign of `problems` problems (300 is the CLI shard ceiling): a shared contract with
 * a builtin SAT stage and a review stage, a shared protocol, a shared skill and fixtures, and per
 * problem a problem.json, a statement of about 2 KB and its own reference instance.
 */
export function generateCampaign(dir: string, problems: number): void {
  const files: Record<string, string> = {};
  const fixtureCnf = fixtureInstance();
  const variables = Array.from({ length: 20 }, (_, i) => i + 1);
  const good = `v ${variables.join(" ")} 0\n`;
  const bad = `v ${variables.map((v) => -v).join(" ")} 0\n`;
  files["campaign.json"] = json({
    slug: "bench-campaign",
    title: "Benchmark campaign",
    summary: "Generated.",
  });
  files["skills/dimacs/SKILL.md"] = "---\nname: dimacs\ndescription: Reading DIMACS CNF.\n---\n\n# DIMACS\n";
  files["fixtures/fixture.cnf"] = fixtureCnf;
  files["fixtures/good.txt"] = good;
  files["fixtures/bad.txt"] = bad;
  const input = (filename: string, text: string) => ({
    filename,
    content_hash: sha(text),
    size_bytes: text.length,
  });
  files["verifier-contract.json"] = json({
    title: "Satisfying assignment, reviewed",
    reference_inputs: [{ key: "instance", required: true, media_types: ["text/plain"], max_bytes: 1048576 }],
    stages: [
      {
        key: "sat_check",
        kind: "sandbox",
        title: "Check",
        acceptance: "Every clause has a true literal.",
        implementation: "svc-builtin/sat-assignment-check:1",
      },
      {
        key: "review",
        kind: "review",
        title: "Review",
        acceptance: "Two reviewers accept.",
        review_protocol_id: "./review-protocol.json",
      },
    ],
    submission_requirements: {
      required_artifacts: [{ role: "assignment", media_types: ["text/plain"], max_bytes: 65536 }],
    },
    result_kind: "pass_fail",
    conformance_fixtures: [
      {
        key: "good",
        stage_key: "sat_check",
        inputs: {
          reference: { instance: input("fixture.cnf", fixtureCnf) },
          artifacts: [{ role: "assignment", ...input("good.txt", good) }],
        },
        expected_result: "verified",
      },
      {
        key: "bad",
        stage_key: "sat_check",
        inputs: {
          reference: { instance: input("fixture.cnf", fixtureCnf) },
          artifacts: [{ role: "assignment", ...input("bad.txt", bad) }],
        },
        expected_result: "refuted",
      },
    ],
  });
  files["review-protocol.json"] = json({
    version: "svc.review/v0.1",
    purpose: "acceptance",
    title: "Two readers",
    subject_kind: "submission",
    nodes: [
      {
        id: "readers",
        type: "review",
        reviewers: { kind: "human", count: 2, independent: true, eligibility: { rule: "any_participant" } },
        visibility: { prior_nodes: [], stage_evidence: true, hidden: [] },
        skills: [{ skill_version_id: "./skills/dimacs", requirement: "recommended" }],
        rubric: {
          instructions_md: "Accept a clean assignment.",
          response_schema: {
            type: "object",
            properties: { verdict: { enum: ["accept", "reject"] } },
            required: ["verdict"],
          },
          rationale: "required",
          citations: { min_items: 0 },
          confidence: "optional",
        },
      },
      {
        id: "decision",
        type: "reduce",
        inputs: ["readers"],
        op: "k_of_n",
        config: {
          field: "verdict",
          accept: { predicate: { op: "eq", value: "accept" }, k: 2 },
          reject: { predicate: { op: "eq", value: "reject" }, k: 1 },
        },
      },
    ],
    output: "decision",
    policy: { assignment_timeout_hours: 72 },
  });
  const paragraph =
    "Find an assignment of the variables that satisfies every clause of the instance. ".repeat(25);
  for (let i = 0; i < problems; i++) {
    const slug = `sat-${String(i).padStart(4, "0")}`;
    files[`problems/${slug}/problem.json`] = json({
      slug,
      title: `SAT instance ${i}`,
      summary: `A generated 3-SAT instance, number ${i}.`,
      priority_weight: (i % 10) / 10,
    });
    files[`problems/${slug}/statement.md`] = `# SAT instance ${i}\n\n${paragraph}\n`;
    files[`problems/${slug}/reference/instance.cnf`] = instance(i + 1, 50, 200);
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
