import type { ProtocolNode } from "@svc/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeDependencies } from "../../../src/reviews/process-transitions.ts";
import { coalesce, humanNode, kOfN, protocol, threshold, when } from "./support/protocols.ts";
import { advance, claim, hoursAfter, type SimProcess, simProcess, submit } from "./support/simulate.ts";

const t0 = new Date("2026-03-01T10:00:00Z");
const status = (sim: SimProcess, id: string) => sim.nodes.find((n) => n.node_id === id)!.status;

describe("planTransitions", () => {
  it("opens the first review node with its deadline, and nothing else, at the start", () => {
    const sim = simProcess(protocol([humanNode("readers"), kOfN("decision", "readers", 2, 1)], "decision"));
    const plan = advance(sim, t0);
    expect(plan).toEqual([
      { kind: "open", node_id: "readers", opened_at: t0, deadline_at: hoursAfter(t0, 72) },
    ]);
    expect(status(sim, "decision")).toBe("pending");
  });

  it("completes a review node at its count, reduces at once and finishes with the output's outcome", () => {
    const sim = simProcess(protocol([humanNode("readers"), kOfN("decision", "readers", 2, 1)], "decision"));
    advance(sim, t0);
    submit(sim, "readers", { verdict: "accept" }, hoursAfter(t0, 1));
    expect(advance(sim, hoursAfter(t0, 1))).toEqual([]);
    submit(sim, "readers", { verdict: "accept" }, hoursAfter(t0, 2));
    const plan = advance(sim, hoursAfter(t0, 2));
    expect(plan.map((t) => t.kind)).toEqual(["complete_review", "reduce", "finish"]);
    expect(sim.finished).toEqual({ end_reason: "completed", outcome: "accept" });
  });

  it("runs an escalation node only when its condition node emitted unresolved", () => {
    const nodes: ProtocolNode[] = [
      humanNode("first", { count: 2 }),
      kOfN("first_decision", "first", 2, 2),
      humanNode("escalation", {
        count: 1,
        when: when("first_decision", "unresolved"),
        prior_nodes: ["first_decision"],
      }),
      kOfN("escalation_decision", "escalation", 1, 1),
      coalesce("decision", ["first_decision", "escalation_decision"]),
    ];
    const split = simProcess(protocol(nodes, "decision"));
    advance(split, t0);
    submit(split, "first", { verdict: "accept" }, t0);
    submit(split, "first", { verdict: "reject" }, t0);
    advance(split, t0);
    expect(status(split, "escalation")).toBe("open");
    submit(split, "escalation", { verdict: "reject" }, t0);
    advance(split, t0);
    expect(split.finished).toEqual({ end_reason: "completed", outcome: "reject" });

    const agreed = simProcess(protocol(nodes, "decision"));
    advance(agreed, t0);
    submit(agreed, "first", { verdict: "accept" }, t0);
    submit(agreed, "first", { verdict: "accept" }, t0);
    advance(agreed, t0);
    expect(status(agreed, "escalation")).toBe("skipped");
    expect(agreed.nodes.find((n) => n.node_id === "escalation")!.skip_reason).toBe(
      'node "first_decision" emitted accept; this node runs only on unresolved',
    );
    expect(status(agreed, "escalation_decision")).toBe("skipped");
    expect(agreed.finished).toEqual({ end_reason: "completed", outcome: "accept" });
  });

  it("reduces threshold nodes over the mean and the median", () => {
    const scores = [{ score: 0.2 }, { score: 0.9 }, { score: 1 }];
    for (const [aggregate, outcome] of [
      ["mean", "unresolved"],
      ["median", "accept"],
    ] as const) {
      const sim = simProcess(
        protocol(
          [humanNode("graders", { count: 3 }), threshold("decision", "graders", aggregate, 0.8, 0.5)],
          "decision",
        ),
      );
      advance(sim, t0);
      for (const score of scores) submit(sim, "graders", { verdict: "accept", ...score }, t0);
      advance(sim, t0);
      expect(sim.finished).toEqual({ end_reason: "completed", outcome });
    }
  });

  it("lapses a passed hold at its hold_until, reopening the seat", () => {
    const sim = simProcess(
      protocol([humanNode("readers", { count: 1 }), kOfN("decision", "readers", 1, 1)], "decision"),
    );
    advance(sim, t0);
    const id = claim(sim, "readers", t0, hoursAfter(t0, 2));
    expect(advance(sim, hoursAfter(t0, 1))).toEqual([]);
    expect(advance(sim, hoursAfter(t0, 3))).toEqual([
      { kind: "lapse", assignment_id: id, at: hoursAfter(t0, 2), reason: "hold_passed" },
    ]);
  });

  it("ends the process reviewers_unavailable at a deadline with a seat open, skipping what is pending", () => {
    const sim = simProcess(protocol([humanNode("readers"), kOfN("decision", "readers", 2, 1)], "decision"));
    advance(sim, t0);
    submit(sim, "readers", { verdict: "accept" }, t0);
    const held = claim(sim, "readers", hoursAfter(t0, 71), hoursAfter(t0, 73));
    expect(advance(sim, hoursAfter(t0, 71.9))).toEqual([]);
    const plan = advance(sim, hoursAfter(t0, 72));
    expect(plan).toEqual([
      {
        kind: "skip",
        node_id: "decision",
        skip_reason: "the process ended (reviewers_unavailable) before this node's dependencies completed",
      },
      { kind: "lapse", assignment_id: held, at: hoursAfter(t0, 72), reason: "process_finished" },
      { kind: "finish", end_reason: "reviewers_unavailable", outcome: null, finished_at: hoursAfter(t0, 72) },
    ]);
  });
});

/** A random protocol: review nodes each reduced by k_of_n, some escalated on unresolved, all coalesced. */
const arbitraryProtocol = fc
  .array(
    fc.record({
      count: fc.integer({ min: 1, max: 3 }),
      acceptK: fc.integer({ min: 1, max: 3 }),
      escalate: fc.boolean(),
      seesPrevious: fc.boolean(),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((stages) => {
    const nodes: ProtocolNode[] = [];
    const outputs: string[] = [];
    stages.forEach((stage, i) => {
      const acceptK = Math.min(stage.acceptK, stage.count);
      const rejectK = stage.count - acceptK + 1;
      const prior = stage.seesPrevious && i > 0 ? [`d${i - 1}`] : [];
      nodes.push(
        humanNode(`r${i}`, { count: stage.count, prior_nodes: prior }),
        kOfN(`d${i}`, `r${i}`, acceptK, rejectK),
      );
      outputs.push(`d${i}`);
      if (stage.escalate) {
        nodes.push(
          humanNode(`e${i}`, { count: 1, when: when(`d${i}`, "unresolved") }),
          kOfN(`ed${i}`, `e${i}`, 1, 1, when(`d${i}`, "unresolved")),
        );
        outputs.push(`ed${i}`);
      }
    });
    nodes.push(coalesce("out", outputs));
    return protocol(nodes, "out");
  });

const arbitraryEvents = fc.array(
  fc.record({
    hours: fc.double({ min: 0, max: 30, noNaN: true }),
    pick: fc.nat(),
    verdict: fc.constantFrom("accept", "reject", "maybe"),
  }),
  { maxLength: 25 },
);

/** Every node that has opened or completed has all its dependencies completed or skipped. */
function dependenciesRespected(sim: SimProcess): boolean {
  const settled = (id: string) =>
    ["completed", "skipped"].includes(sim.nodes.find((n) => n.node_id === id)!.status);
  return sim.document.nodes.every((node) => {
    const row = sim.nodes.find((n) => n.node_id === node.id)!;
    return row.status === "pending" || row.status === "skipped" || nodeDependencies(node).every(settled);
  });
}

describe("planTransitions properties", () => {
  it("never opens a node before its dependencies, reaches a fixed point, and always terminates", () => {
    fc.assert(
      fc.property(arbitraryProtocol, arbitraryEvents, (document, events) => {
        const sim = simProcess(document);
        let now = t0;
        advance(sim, now);
        for (const event of events) {
          now = hoursAfter(now, event.hours);
          const open = sim.nodes.filter(
            (n) =>
              n.status === "open" &&
              sim.assignments.filter((a) => a.node_id === n.node_id && a.status === "submitted").length <
                n.seats!,
          );
          if (open.length > 0 && !sim.finished && open[event.pick % open.length]!.deadline_at! > now) {
            submit(sim, open[event.pick % open.length]!.node_id, { verdict: event.verdict }, now);
          }
          advance(sim, now);
          expect(dependenciesRespected(sim)).toBe(true);
          expect(advance(sim, now)).toEqual([]);
        }
        for (let i = 0; i <= document.nodes.length && !sim.finished; i++) {
          now = hoursAfter(now, 1000);
          advance(sim, now);
          expect(dependenciesRespected(sim)).toBe(true);
        }
        expect(sim.finished).not.toBeNull();
        const output = sim.nodes.find((n) => n.node_id === "out")!;
        if (sim.finished!.end_reason === "completed") expect(sim.finished!.outcome).toBe(output.outcome);
        else expect(output.status).toBe("skipped");
        expect(sim.nodes.some((n) => n.status === "pending")).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("finishes completed whenever every seat is filled before the deadlines", () => {
    fc.assert(
      fc.property(
        arbitraryProtocol,
        fc.array(fc.constantFrom("accept", "reject"), { minLength: 40, maxLength: 40 }),
        (document, verdicts) => {
          const sim = simProcess(document);
          let i = 0;
          for (let step = 0; step < 40 && !sim.finished; step++) {
            advance(sim, t0);
            for (const node of sim.nodes.filter((n) => n.status === "open")) {
              const done = sim.assignments.filter((a) => a.node_id === node.node_id).length;
              for (let seat = done; seat < node.seats!; seat++)
                submit(sim, node.node_id, { verdict: verdicts[i++ % 40] }, t0);
            }
          }
          expect(sim.finished?.end_reason).toBe("completed");
        },
      ),
      { numRuns: 200 },
    );
  });
});
