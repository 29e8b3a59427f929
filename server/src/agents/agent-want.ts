/** One row of agent_wants. */
export interface AgentWantRow {
  id: string;
  user_id: string;
  problem_id: string;
  note_md: string | null;
  created_at: Date;
  withdrawn_at: Date | null;
}

/** A want as want_solved and withdraw_want return it. */
export function wantView(row: AgentWantRow) {
  return {
    want_id: row.id,
    problem_id: row.problem_id,
    note_md: row.note_md,
    created_at: row.created_at.toISOString(),
    withdrawn_at: row.withdrawn_at?.toISOString() ?? null,
  };
}
