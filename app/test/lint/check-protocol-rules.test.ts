import { readdirSync, readFileSync } from "node:fs";
import { checkSchema, type ReviewProtocolDocument } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkProtocolRules } from "../../src/lint/check-protocol-rules.ts";
import { protocolDependencies } from "../../src/lint/protocol-dependencies.ts";

const FIXTURES = new URL("../fixtures/lint/", import.meta.url);
const FILE = "review-protocol.json";

/** Applies the document schema as lint does (defaults filled in); fails the test when it does not pass. */
function schemaValid(document: unknown): ReviewProtocolDocument {
  const checked = checkSchema<ReviewProtocolDocument>("review-protocol-document", document);
  if (!checked.valid) throw new Error(`not schema-valid: ${JSON.stringify(checked.issues, null, 2)}`);
  return checked.value;
}

function check(document: unknown, localSkills: string[] = []) {
  return checkProtocolRules(schemaValid(document), { file: FILE, localSkills: new Set(localSkills) });
}

/** Errors reduced to what expect files and assertions compare. */
function brief(errors: Array<{ code: string; rule?: number; path: string }>) {
  return errors.map((e) =>
    e.rule === undefined ? { code: e.code, path: e.path } : { code: e.code, rule: e.rule, path: e.path },
  );
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(new URL(path, FIXTURES), "utf8"));
// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited freely in tests
const valid = (): any => readJson("valid-review/review-protocol.json");

const reviewNode = (id: string, extra: Record<string, unknown> = {}) => ({
  ...valid().nodes[0],
  id,
  ...extra,
});
const reduceNode = (
  id: string,
  inputs: string[],
  op: string,
  config: unknown,
  extra: Record<string, unknown> = {},
) => ({
  id,
  type: "reduce",
  inputs,
  op,
  config,
  ...extra,
});
const kOfN = (field = "verdict", acceptK = 2, rejectK = 1) => ({
  field,
  accept: { predicate: { op: "eq", value: "accept" }, k: acceptK },
  reject: { predicate: { op: "eq", value: "reject" }, k: rejectK },
});

describe("checkProtocolRules on the fixture packages", () => {
  const expectFiles = readdirSync(FIXTURES).filter((name) =>
    /^(rule-\d\d-.+|skill-not-found)\.expect\.json$/.test(name),
  );

  it("has one fixture per rule", () => {
    const rules = new Set(
      expectFiles.map((name) => Number(name.slice(5, 7))).filter((n) => !Number.isNaN(n)),
    );
    expect([...rules].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });

  it("finds nothing in valid-review", () => {
    expect(check(valid())).toEqual({ errors: [], notes: [] });
  });

  for (const name of expectFiles) {
    const dir = name.replace(/\.expect\.json$/, "");
    it(`reports exactly the expected records for ${dir}`, () => {
      const expected = readJson(name) as { errors: unknown[]; notes: unknown[] };
      const result = check(readJson(`${dir}/review-protocol.json`));
      const pick = (r: { code: string; rule?: number; file: string; path: string }) =>
        r.rule === undefined
          ? { code: r.code, file: r.file, path: r.path }
          : { code: r.code, rule: r.rule, file: r.file, path: r.path };
      expect(result.errors.map(pick)).toEqual(expected.errors);
      expect(result.notes.map((n) => ({ code: n.code, file: n.file, path: n.path }))).toEqual(expected.notes);
      for (const e of result.errors) {
        if (e.rule !== undefined) expect(e.message).toMatch(new RegExp(`^rule ${e.rule}: `));
      }
    });
  }
});

describe("checkProtocolRules edge cases", () => {
  it("reports several violations together, ordered by path with numeric indices", () => {
    const document = valid();
    document.nodes[0].reviewers.eligibility = null;
    document.nodes[0].reviewers.allowed = [{ provider: "anthropic", model: "m" }];
    document.nodes[1].config.field = "nope";
    document.policy = { assignment_timeout_hours: 1, claim_hold_minutes: 60 };
    for (let i = 2; i < 11; i += 1) {
      document.nodes.push(reviewNode(`extra_${i}`, { when: { node: "decision", outcome: "unresolved" } }));
    }
    document.nodes[10].op = "coalesce";
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 8, path: "/nodes/0/reviewers/allowed" },
      { code: "rule_violation", rule: 8, path: "/nodes/0/reviewers/eligibility" },
      { code: "rule_violation", rule: 12, path: "/nodes/1/config/field" },
      { code: "rule_violation", rule: 2, path: "/nodes/10/op" },
      { code: "rule_violation", rule: 16, path: "/policy/claim_hold_minutes" },
    ]);
  });

  it("reports a k_of_n field on a response_schema whose properties are null as undeclared, never throwing", () => {
    const document = valid();
    document.nodes[0].rubric.response_schema.properties = null;
    expect(brief(check(document).errors)).toContainEqual({
      code: "rule_violation",
      rule: 12,
      path: "/nodes/1/config/field",
    });
  });

  it("finds a cycle that runs through a when condition, once", () => {
    const document = valid();
    document.nodes[0].when = { node: "gate", outcome: "accept" };
    document.nodes.push(reduceNode("gate", ["decision"], "coalesce", {}));
    const { errors } = check(document);
    expect(brief(errors)).toEqual([{ code: "rule_violation", rule: 5, path: "/nodes/0/when/node" }]);
    expect(errors[0]!.message).toContain("readers -> gate -> decision -> readers");
  });

  it("reports a self reference under rule 3 only", () => {
    const document = valid();
    document.nodes[1].inputs = ["decision"];
    document.nodes.push(reviewNode("again", { when: { node: "again", outcome: "accept" } }));
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 3, path: "/nodes/1/inputs/0" },
      { code: "rule_violation", rule: 3, path: "/nodes/2/when/node" },
    ]);
  });

  it("accepts a node conditional on the output node itself (rule 6)", () => {
    const document = valid();
    document.nodes.push(reviewNode("appeal", { when: { node: "decision", outcome: "reject" } }));
    expect(check(document).errors).toEqual([]);
  });

  it("accepts an escalation whose senior reviewers see the first round (rule 10)", () => {
    const document = valid();
    document.nodes.push(
      reviewNode("senior", {
        when: { node: "decision", outcome: "unresolved" },
        reviewers: {
          kind: "human",
          count: 1,
          independent: true,
          eligibility: { rule: "campaign_reviewers" },
        },
        visibility: { prior_nodes: ["readers", "decision"], stage_evidence: true, hidden: [] },
      }),
      reduceNode("senior_decision", ["senior"], "k_of_n", kOfN("verdict", 1, 1)),
      reduceNode("final", ["decision", "senior_decision"], "coalesce", {}),
    );
    document.output = "final";
    expect(check(document).errors).toEqual([]);
    expect(protocolDependencies(schemaValid(document))).toEqual(
      new Map([
        ["readers", []],
        ["decision", ["readers"]],
        ["senior", ["readers", "decision"]],
        ["senior_decision", ["senior"]],
        ["final", ["decision", "senior_decision"]],
      ]),
    );
  });

  it("refuses a prior node conditional on this node's own outcome (rule 10, not rule 5)", () => {
    const document = valid();
    document.nodes.push(
      reviewNode("senior", {
        when: { node: "decision", outcome: "unresolved" },
        visibility: { prior_nodes: [], stage_evidence: false, hidden: [] },
      }),
    );
    document.nodes[0].visibility.prior_nodes = ["senior"];
    const { errors } = check(document);
    expect(brief(errors)).toEqual([
      { code: "rule_violation", rule: 10, path: "/nodes/0/visibility/prior_nodes/0" },
    ]);
    expect(errors[0]!.message).toContain("senior -> decision -> readers");
  });

  it("refuses an `in` predicate with an empty array and one with a non-scalar item (rule 13)", () => {
    const document = valid();
    document.nodes[1].config.accept.predicate = { op: "in", value: [] };
    document.nodes[1].config.reject.predicate = { op: "in", value: ["reject", { no: 1 }] };
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 13, path: "/nodes/1/config/accept/predicate/value" },
      { code: "rule_violation", rule: 13, path: "/nodes/1/config/reject/predicate/value/1" },
    ]);
  });

  it("refuses an `eq` predicate with an array and k values the reviewer count cannot meet (rule 13)", () => {
    const document = valid();
    document.nodes[1].config = kOfN("verdict", 3, 1);
    document.nodes[1].config.reject.predicate = { op: "eq", value: ["reject"] };
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 13, path: "/nodes/1/config/accept/k" },
      { code: "rule_violation", rule: 13, path: "/nodes/1/config/reject/predicate/value" },
    ]);
    document.nodes[1].config = kOfN("verdict", 1, 1);
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 13, path: "/nodes/1/config" },
    ]);
  });

  it('treats 1 and "1" as different predicate values (rule 13)', () => {
    const document = valid();
    document.nodes[0].rubric.response_schema = { type: "object", properties: { verdict: {} } };
    document.nodes[1].config.accept.predicate = { op: "in", value: [1, true] };
    document.nodes[1].config.reject.predicate = { op: "in", value: ["1", "true", null] };
    expect(check(document).errors).toEqual([]);
  });

  it("refuses a threshold over a field that is not declared numeric (rule 14)", () => {
    const document = valid();
    document.nodes[1].op = "threshold";
    document.nodes[1].config = { field: "verdict", aggregate: "median", accept_gte: 1, reject_lt: 1 };
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 14, path: "/nodes/1/config/field" },
    ]);
    document.nodes[0].rubric.response_schema.properties.verdict = { type: ["integer", "number"] };
    expect(check(document).errors).toEqual([]);
  });

  it("refuses k_of_n and threshold over anything but exactly one review node (rules 13 and 14)", () => {
    const document = valid();
    document.nodes.push(
      reviewNode("other"),
      reduceNode("by_score", ["decision"], "threshold", {
        field: "score",
        aggregate: "min",
        accept_gte: 1,
        reject_lt: 0,
      }),
      reduceNode("final", ["decision", "by_score"], "coalesce", {}),
    );
    document.nodes[1].inputs = ["readers", "other"];
    document.output = "final";
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 13, path: "/nodes/1/inputs" },
      { code: "rule_violation", rule: 14, path: "/nodes/3/inputs/0" },
    ]);
  });

  it("refuses a coalesce with configuration (rule 15)", () => {
    const document = valid();
    document.nodes.push(reduceNode("final", ["decision"], "coalesce", { field: "verdict" }));
    document.output = "final";
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 15, path: "/nodes/2/config" },
    ]);
  });

  it("checks agent reviewers against the hosted provider (rules 8 and 9)", () => {
    const document = valid();
    document.nodes[0].reviewers = {
      kind: "agent",
      count: 1,
      independent: true,
      eligibility: { rule: "any_participant" },
      allowed: [
        { provider: "anthropic", model: "any-model", config: { effort: "xhigh", max_tokens: 64000 } },
        { provider: "anthropic", model: "any-model", config: { effort: "extreme", max_tokens: 255.5 } },
        { provider: "elsewhere", model: "m", config: { whatever: true } },
      ],
      assistance: { required: false },
    };
    document.nodes[1].config = kOfN("verdict", 1, 1);
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 9, path: "/nodes/0/reviewers/allowed/1/config/effort" },
      { code: "rule_violation", rule: 9, path: "/nodes/0/reviewers/allowed/1/config/max_tokens" },
      { code: "rule_violation", rule: 9, path: "/nodes/0/reviewers/allowed/2/provider" },
      { code: "rule_violation", rule: 8, path: "/nodes/0/reviewers/assistance" },
      { code: "rule_violation", rule: 8, path: "/nodes/0/reviewers/eligibility" },
    ]);
  });

  it("demands organization_id and a non-empty user_ids from their eligibility rules (rule 8)", () => {
    const document = valid();
    document.nodes[0].reviewers.eligibility = { rule: "named_users", user_ids: [] };
    document.nodes.push(
      reviewNode("org", {
        when: { node: "decision", outcome: "accept" },
        reviewers: {
          kind: "human",
          count: 1,
          independent: false,
          eligibility: { rule: "organization_members" },
        },
      }),
    );
    expect(brief(check(document).errors)).toEqual([
      { code: "rule_violation", rule: 8, path: "/nodes/0/reviewers/eligibility/user_ids" },
      { code: "rule_violation", rule: 8, path: "/nodes/2/reviewers/eligibility/organization_id" },
    ]);
  });

  it("refuses a response_schema that does not compile (rule 11)", () => {
    const document = valid();
    document.nodes[0].rubric.response_schema = {
      type: "object",
      properties: { verdict: { type: "nonsense" } },
    };
    const { errors } = check(document);
    expect(brief(errors)).toEqual([
      { code: "rule_violation", rule: 11, path: "/nodes/0/rubric/response_schema" },
    ]);
  });

  it("resolves local skills against the package's skill directories", () => {
    const document = valid();
    document.nodes[0].skills = [
      { skill_version_id: "./skills/essay-grading", requirement: "required" },
      { skill_version_id: "skv_0123456789", requirement: "recommended" },
      { skill_version_id: "./skills/missing", requirement: "recommended" },
    ];
    expect(brief(check(document, ["essay-grading"]).errors)).toEqual([
      { code: "not_found", path: "/nodes/0/skills/2/skill_version_id" },
    ]);
  });

  it("skips the ancestry rule while a reference dangles or the output is not a reduce node", () => {
    const document = valid();
    document.nodes.push(reviewNode("lonely"));
    document.output = "readers";
    expect(brief(check(document).errors)).toEqual([{ code: "rule_violation", rule: 4, path: "/output" }]);
    document.output = "nowhere";
    expect(brief(check(document).errors)).toEqual([{ code: "rule_violation", rule: 3, path: "/output" }]);
  });
});

// Documents the schema accepts, with graphs drawn at random among a few ids so that duplicates,
// dangling references, self references and cycles all occur.
const ID_POOL = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r"];
const id = fc.constantFrom(...ID_POOL);
const mostly = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 8 });
const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
const scalarOrNot = fc.oneof(
  fc.constantFrom("accept", "reject", 1, "1", true, null),
  fc.array(fc.oneof(fc.constantFrom("accept", "reject", 2), fc.jsonValue()), { maxLength: 3 }),
  fc.jsonValue(),
);
const clause = fc.record({
  predicate: fc.record({ op: fc.constantFrom("eq", "in"), value: scalarOrNot }),
  k: fc.integer({ min: 1, max: 30 }),
});
const field = fc.constantFrom("verdict", "score", "missing");
const reduceBody = fc.oneof(
  fc.record({
    op: fc.constant("k_of_n"),
    config: mostly(fc.record({ field, accept: clause, reject: clause })),
  }),
  fc.record({
    op: fc.constant("threshold"),
    config: mostly(
      fc.record({
        field,
        aggregate: fc.constantFrom("mean", "median", "min", "max"),
        accept_gte: fc.double({ noNaN: true, noDefaultInfinity: true }),
        reject_lt: fc.double({ noNaN: true, noDefaultInfinity: true }),
      }),
    ),
  }),
  fc.record({
    op: fc.constant("coalesce"),
    config: mostly(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 })),
  }),
  fc.record({ op: fc.constant(null), config: fc.constant(null) }),
);
const reviewers = fc.record({
  kind: fc.constantFrom("human", "agent"),
  count: fc.integer({ min: 1, max: 25 }),
  independent: fc.boolean(),
  eligibility: fc.option(
    fc.record({
      rule: fc.constantFrom("any_participant", "organization_members", "campaign_reviewers", "named_users"),
      organization_id: fc.constantFrom(null, "org_0123456789"),
      user_ids: fc.constantFrom(null, [], ["usr_0123456789"]),
    }),
    { nil: null },
  ),
  allowed: fc.option(
    fc.array(
      fc.record({
        provider: fc.constantFrom("anthropic", "other"),
        model: fc.constant("m"),
        config: fc.dictionary(
          fc.constantFrom("effort", "max_tokens", "temperature", "__proto__"),
          fc.jsonValue(),
        ),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    { nil: null },
  ),
  assistance: fc.option(fc.record({ required: fc.boolean() }), { nil: null }),
});
const responseSchema = fc.constantFrom<Record<string, unknown>>(
  { type: "object", properties: { verdict: { enum: ["accept", "reject"] }, score: { type: "number" } } },
  { properties: { rationale: {}, score: { type: "string" } } },
  { type: "nonsense" },
  { properties: 5 },
  { properties: { verdict: true } },
  {},
);
const rubric = fc.record({
  instructions_md: fc.constant("Judge."),
  response_schema: responseSchema,
  rationale: fc.constantFrom("required", "optional"),
  citations: fc.record({ min_items: fc.integer({ min: 0, max: 50 }) }),
  confidence: fc.constantFrom("required", "optional"),
});
const visibility = fc.record({
  prior_nodes: fc.uniqueArray(id, { maxLength: 4 }),
  stage_evidence: fc.boolean(),
  hidden: fc.constant([]),
});
const skills = fc.array(
  fc.record({
    skill_version_id: fc.constantFrom("./skills/here", "./skills/missing", "skv_0123456789"),
    requirement: fc.constantFrom("required", "recommended"),
  }),
  { maxLength: 2 },
);
const when = fc.option(fc.record({ node: id, outcome: fc.constantFrom("accept", "reject", "unresolved") }), {
  nil: null,
  freq: 3,
});
const node = fc.constantFrom("review", "reduce").chain((type) => {
  const own = type === "review";
  const body = own ? fc.constant({ op: null, config: null }) : reduceBody;
  return fc
    .record({
      id,
      when,
      reviewers: own ? mostly(reviewers) : rarely(reviewers),
      visibility: own ? mostly(visibility) : rarely(visibility),
      conflicts: rarely(
        fc.record({ exclude_submitter: fc.boolean(), exclude_submitter_organization: fc.boolean() }),
      ),
      skills: own ? fc.option(skills, { nil: null }) : rarely(skills),
      rubric: own ? mostly(rubric) : rarely(rubric),
      inputs: own
        ? rarely(fc.uniqueArray(id, { minLength: 1, maxLength: 4 }))
        : mostly(fc.uniqueArray(id, { minLength: 1, maxLength: 4 })),
      body: own ? fc.oneof({ weight: 8, arbitrary: body }, { weight: 1, arbitrary: reduceBody }) : body,
    })
    .map(({ body: b, ...rest }) => ({ type, ...rest, ...b }));
});
const drawnDocument = fc.record({
  version: fc.constant("svc.review/v0.1"),
  purpose: fc.constant("acceptance"),
  title: fc.constant("Random"),
  subject_kind: fc.constant("submission"),
  nodes: fc.array(node, { minLength: 1, maxLength: 16 }),
  output: id,
  policy: fc.record(
    {
      assignment_timeout_hours: fc.integer({ min: 1, max: 720 }),
      claim_hold_minutes: fc.integer({ min: 15, max: 1440 }),
      max_replacements_per_node: fc.integer({ min: 0, max: 10 }),
    },
    { requiredKeys: ["assignment_timeout_hours"] },
  ),
});

/**
 * Drawn ids rarely all exist, which would leave the graph rules behind rule 3. Most documents
 * are therefore closed: every reference is mapped onto an id the document has (optionally
 * after making ids unique), so unknown ids and most self references vanish while cycles remain.
 */
const protocolDocument = fc
  .tuple(drawnDocument, fc.constantFrom("drawn", "closed", "closed-unique"))
  .map(([document, variant]) => {
    if (variant === "drawn") return document;
    // biome-ignore lint/suspicious/noExplicitAny: the generated shape is rewritten in place
    const doc: any = structuredClone(document);
    if (variant === "closed-unique") {
      for (const [i, n] of (doc.nodes as Array<{ id: string }>).entries()) n.id = ID_POOL[i]!;
    }
    const ids: string[] = doc.nodes.map((n: { id: string }) => n.id);
    const close = (target: string, holder?: string) => {
      const at = ID_POOL.indexOf(target);
      const chosen = ids[at % ids.length]!;
      return chosen === holder ? ids[(at + 1) % ids.length]! : chosen;
    };
    for (const n of doc.nodes) {
      const closeAll = (list: string[]) => [...new Set(list.map((t) => close(t, n.id)))];
      if (n.when) n.when.node = close(n.when.node, n.id);
      if (n.inputs) n.inputs = closeAll(n.inputs);
      if (n.visibility) n.visibility.prior_nodes = closeAll(n.visibility.prior_nodes);
    }
    doc.output = close(doc.output);
    return doc as typeof document;
  });

/** Resolves an RFC 6901 pointer, or undefined when it leads nowhere. */
function resolvePointer(document: unknown, path: string): unknown {
  let value = document;
  for (const raw of path.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

describe("checkProtocolRules on arbitrary schema-valid documents", () => {
  it("never throws, reports only numbered rules and local skills, each at a path that exists, in order", () => {
    fc.assert(
      fc.property(protocolDocument, (generated) => {
        const document = schemaValid(generated);
        const result = checkProtocolRules(document, { file: FILE, localSkills: new Set(["here"]) });
        for (const e of result.errors) {
          expect(["rule_violation", "not_found"]).toContain(e.code);
          if (e.code === "rule_violation") {
            expect(e.rule).toBeGreaterThanOrEqual(1);
            expect(e.rule).toBeLessThanOrEqual(16);
            expect(e.message.startsWith(`rule ${e.rule}: `)).toBe(true);
          } else {
            expect(e.rule).toBeUndefined();
          }
          expect(e.file).toBe(FILE);
          expect(resolvePointer(document, e.path)).not.toBeUndefined();
        }
        for (const n of result.notes) expect(n.code).toBe("deprecated_field");
        expect(checkProtocolRules(document, { file: FILE, localSkills: new Set(["here"]) })).toEqual(result);
      }),
      { numRuns: 400 },
    );
  });
});
