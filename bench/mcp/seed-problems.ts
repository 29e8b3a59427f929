import type { Pool } from "../../server/src/core/db/connect-sql.ts";

/**
 * Inserts `count` listed, open, standalone problems with one revision each, with statements of
 * about 80 words drawn from a fixed vocabulary by a seeded generator, so searches have a realistic
 * spread of hits. Returns the owner's user id. Rows go in batches through the SQL helpers; the
 * search document is computed by the same function publication uses.
 */
export async function seedProblems(sql: Pool, count: number): Promise<string> {
  const owner = "usr_benchowner0000";
  await sql`insert into users (id, handle) values (${owner}, 'bench-owner') on conflict do nothing`;
  let state = 0x2545f491;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const words = (n: number) =>
    Array.from({ length: n }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(" ");
  const BATCH = 2000;
  for (let start = 0; start < count; start += BATCH) {
    const problems: Record<string, string | number>[] = [];
    const revisions: Record<string, string | number>[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const n = String(i).padStart(12, "0");
      const title = `${words(4)} ${i}`;
      problems.push({
        id: `prb_bench${n}`,
        slug: `bench-${i}`,
        owner_user_id: owner,
        structure: "SOLVE",
        title,
        summary: words(14),
        priority_weight: Math.round(random() * 1000) / 1000,
        visibility: "listed",
        current_revision_number: 1,
      });
      revisions.push({
        id: `prv_bench${n}`,
        problem_id: `prb_bench${n}`,
        revision_number: 1,
        statement_md: `# ${title}\n\n${words(80)}\n`,
        created_by_user_id: owner,
      });
    }
    await sql.begin(async (tx) => {
      await tx`insert into problems ${tx(problems)}`;
      await tx`insert into problem_revisions ${tx(revisions)}`;
      await tx`
        update problems p set current_revision_id = r.id,
          search_document = svc_problem_search_document(p.title, p.summary, r.statement_md)
        from problem_revisions r
        where r.problem_id = p.id and p.id = any(${problems.map((p) => p.id)})`;
    });
  }
  await sql`analyze problems`;
  return owner;
}

export const VOCABULARY = (
  "graph colouring matching flow network shortest path tree spanning cycle clique cover " +
  "satisfiability clause literal variable assignment boolean formula solver heuristic search " +
  "prime factor modular arithmetic sequence series integer lattice polynomial root matrix " +
  "eigenvalue vector norm convex optimisation linear program integer constraint schedule " +
  "packing knapsack bin partition subset sum string pattern parse grammar automaton regular " +
  "language compiler register allocation cache memory latency throughput benchmark kernel " +
  "sorting merge heap queue stack hash table bloom filter probability random walk markov " +
  "entropy compression encoding protocol consensus replication fault tolerance proof lemma " +
  "theorem induction invariant geometry polygon convex hull triangulation voronoi distance " +
  "physics simulation particle fluid chemistry molecule protein folding genome sequence alignment"
).split(" ");
