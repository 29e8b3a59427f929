import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Validation } from "../../src/client/authoring-results.ts";
import {
  initialStepState,
  publishStep,
  type StepEvent,
  type StepState,
} from "../../src/client/publish-engine/publish-step.ts";

const REVIEWED = "sha256:reviewed";
const OTHER = "sha256:other";

function validation(planHash: string | null, extra: Partial<Validation> = {}): Validation {
  return {
    valid: true,
    errors: [],
    notes: [],
    plan_hash: planHash,
    conformance: [],
    reconciliation: {
      campaign: null,
      problems: [{ slug: "p", action: "create" }],
      counts: { create: 1, update: 0, revise: 0, noop: 0, conflict: 0 },
      warnings: [],
    },
    ...extra,
  };
}

const fresh = (): StepState =>
  initialStepState({ status: "planned", upload_id: null, plan_hash: null }, REVIEWED);

/** Feeds events in order; the actions the step function chose. */
function run(state: StepState, events: StepEvent[]) {
  const actions = [];
  let result = publishStep(state, { kind: "begin" });
  actions.push(result.action);
  for (const event of events) {
    result = publishStep(result.state, event);
    actions.push(result.action);
  }
  return { actions, state: result.state };
}

describe("publishStep", () => {
  it("takes a planned shard through request, put, validate and publish with the reviewed plan_hash", () => {
    const { actions, state } = run(fresh(), [
      { kind: "requested", upload_id: "upl_1" },
      { kind: "put" },
      { kind: "validated", validation: validation(REVIEWED) },
      { kind: "published" },
    ]);
    expect(actions.map((a) => a.kind)).toEqual(["request", "put", "validate", "publish", "done"]);
    expect(actions[3]).toEqual({ kind: "publish", upload_id: "upl_1", plan_hash: REVIEWED });
    expect(state.status).toBe("published");
  });

  it("refuses with stale_plan_hash, publishing nothing, when the service plans the files differently", () => {
    const { actions, state } = run(fresh(), [
      { kind: "requested", upload_id: "upl_1" },
      { kind: "put" },
      { kind: "validated", validation: validation(OTHER) },
    ]);
    expect(actions.at(-1)).toMatchObject({ kind: "stale", code: "stale_plan_hash" });
    expect(actions.some((a) => a.kind === "publish")).toBe(false);
    expect(state).toMatchObject({ status: "uploaded", plan_hash: OTHER });
  });

  it("stops on validation errors or a conflict", () => {
    const conflict = validation(REVIEWED, {
      reconciliation: {
        campaign: { slug: "c", action: "conflict" },
        problems: [{ slug: "p", action: "conflict", reason: "owned by bob" }],
        counts: { create: 0, update: 0, revise: 0, noop: 0, conflict: 1 },
        warnings: [],
      },
    });
    const { actions } = run(fresh(), [
      { kind: "requested", upload_id: "upl_1" },
      { kind: "put" },
      { kind: "validated", validation: conflict },
    ]);
    expect(actions.at(-1)).toEqual({
      kind: "invalid",
      errors: [],
      conflicts: [
        { slug: "c", reason: "the campaign is owned by another user" },
        { slug: "p", reason: "owned by bob" },
      ],
    });
  });

  it("answers a stale refusal of publish with exactly one fresh upload", () => {
    const stale: StepEvent = {
      kind: "failed",
      step: "publish",
      code: "stale_server_state",
      message: "x",
      transient: false,
    };
    const upload: StepEvent[] = [
      { kind: "requested", upload_id: "upl_1" },
      { kind: "put" },
      { kind: "validated", validation: validation(REVIEWED) },
    ];
    const { actions } = run(fresh(), [...upload, stale, ...upload, stale]);
    expect(actions.map((a) => a.kind)).toEqual([
      "request",
      "put",
      "validate",
      "publish",
      "request",
      "put",
      "validate",
      "publish",
      "stale",
    ]);
    expect(actions[4]).toEqual({ kind: "request", fresh: "stale_server_state" });
  });

  it("resumes a validated upload by publishing it, and one validated into another plan by validating again", () => {
    const resumed = initialStepState(
      { status: "validated", upload_id: "upl_1", plan_hash: REVIEWED },
      REVIEWED,
    );
    expect(publishStep(resumed, { kind: "begin" }).action).toEqual({
      kind: "publish",
      upload_id: "upl_1",
      plan_hash: REVIEWED,
    });
    const other = initialStepState({ status: "validated", upload_id: "upl_1", plan_hash: OTHER }, REVIEWED);
    expect(publishStep(other, { kind: "begin" }).action).toEqual({ kind: "validate", upload_id: "upl_1" });
  });

  it("gives a resumed upload the service refuses one fresh start, and reports a second refusal", () => {
    const resumed = initialStepState({ status: "uploaded", upload_id: "upl_old", plan_hash: null }, REVIEWED);
    const gone: StepEvent = {
      kind: "failed",
      step: "validate",
      code: "not_found",
      message: "gone",
      transient: false,
    };
    const { actions } = run(resumed, [
      gone,
      { kind: "requested", upload_id: "upl_2" },
      { kind: "put" },
      gone,
    ]);
    expect(actions.map((a) => a.kind)).toEqual(["validate", "request", "put", "validate", "refused"]);
    expect(actions.at(-1)).toMatchObject({ step: "validate", code: "not_found", transient: false });
  });

  it("starts a requested or invalid shard over: its upload URL may have expired", () => {
    for (const status of ["requested", "invalid"] as const) {
      const state = initialStepState({ status, upload_id: "upl_1", plan_hash: null }, REVIEWED);
      expect(publishStep(state, { kind: "begin" }).action).toEqual({ kind: "request", fresh: null });
    }
  });
});

describe("publishStep, for any sequence of events", () => {
  const planHash = fc.constantFrom(REVIEWED, OTHER, null);
  const event: fc.Arbitrary<StepEvent> = fc.oneof(
    fc.constant<StepEvent>({ kind: "begin" }),
    fc.constantFrom("upl_1", "upl_2", "upl_3").map((id): StepEvent => ({ kind: "requested", upload_id: id })),
    fc.constant<StepEvent>({ kind: "put" }),
    fc
      .record({ hash: planHash, valid: fc.boolean(), conflict: fc.boolean() })
      .map(({ hash, valid, conflict }): StepEvent => {
        const v = validation(hash, { valid });
        if (conflict) v.reconciliation!.problems = [{ slug: "p", action: "conflict" }];
        return { kind: "validated", validation: v };
      }),
    fc.constant<StepEvent>({ kind: "published" }),
    fc
      .record({
        step: fc.constantFrom("request", "put", "validate", "publish") as fc.Arbitrary<
          "request" | "put" | "validate" | "publish"
        >,
        code: fc.constantFrom("stale_plan_hash", "stale_server_state", "forbidden", "unavailable"),
        transient: fc.boolean(),
      })
      .map(
        ({ step, code, transient }): StepEvent => ({ kind: "failed", step, code, message: code, transient }),
      ),
  );

  it("never publishes without a validation of that upload whose plan_hash is the reviewed one", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let state = fresh();
        // The upload the last validation matching the reviewed plan_hash was of, since its request.
        let validatedUpload: string | null = null;
        for (const e of events) {
          const { state: next, action } = publishStep(state, e);
          if (
            e.kind === "validated" &&
            e.validation.plan_hash === REVIEWED &&
            next.status === "validated" &&
            state.upload_id !== null
          ) {
            validatedUpload = state.upload_id;
          }
          // A new upload, a fresh start or a validation into another plan forgets the match.
          if (next.upload_id !== state.upload_id || next.plan_hash !== REVIEWED) validatedUpload = null;
          if (action.kind === "publish") {
            expect(action.plan_hash).toBe(REVIEWED);
            expect(action.upload_id).toBe(validatedUpload);
          }
          state = next;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("sends only the reviewed plan_hash to publish, from any persisted state", () => {
    const status = fc.constantFrom(
      "planned",
      "requested",
      "uploaded",
      "validated",
      "published",
      "invalid",
    ) as fc.Arbitrary<StepState["status"]>;
    fc.assert(
      fc.property(
        status,
        fc.option(fc.constant("upl_0")),
        planHash,
        fc.array(event, { maxLength: 30 }),
        (s, upload, hash, events) => {
          let state = initialStepState({ status: s, upload_id: upload, plan_hash: hash }, REVIEWED);
          for (const e of [{ kind: "begin" } as StepEvent, ...events]) {
            const result = publishStep(state, e);
            if (result.action.kind === "publish") {
              expect(result.action.plan_hash).toBe(REVIEWED);
              expect(result.state.plan_hash).toBe(REVIEWED);
            }
            state = result.state;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
