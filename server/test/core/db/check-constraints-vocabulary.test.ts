import { readdirSync, readFileSync } from "node:fs";
import {
  AgentJobKind,
  AssignmentStatus,
  AttemptOutcome,
  AttemptStatus,
  AttestationReason,
  CampaignAuthoredStatus,
  CampaignStatus,
  Capability,
  CriteriaChangeKind,
  DraftStatus,
  EntryEventKind,
  EventDelivery,
  EventKind,
  GrantedRole,
  ImageState,
  MembershipRole,
  NodeStatus,
  NodeType,
  NoteKind,
  ProblemStatus,
  ProcessEndReason,
  ProcessStatus,
  PublicationRequestStatus,
  ReduceOutcome,
  ReviewerKind,
  RunResult,
  RunStatus,
  RunTrigger,
  RuntimeBackend,
  StageKind,
  Structure,
  SubjectKind,
  SubmissionStatus,
  UploadState,
  Visibility,
  WorkSubjectKind,
} from "@svc/schemas";
import { describe, expect, it } from "vitest";

const migrations = new URL("../../../src/core/db/migrations/", import.meta.url);

/**
 * Every `constraint <name> check (<column> in ('a', 'b', ...))` of the migrations, by name; a later
 * migration redefining a constraint wins. Checks of any other shape are not closed sets.
 */
function checkLists(): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const file of readdirSync(migrations).sort()) {
    if (!file.endsWith(".sql")) continue;
    const sql = readFileSync(new URL(file, migrations), "utf8");
    for (const m of sql.matchAll(/constraint\s+(\w+)\s+check\s*\(\s*\w+\s+in\s*\(([^)]*)\)\s*\)/gi)) {
      lists.set(
        m[1]!,
        [...m[2]!.matchAll(/'([^']*)'/g)].map((v) => v[1]!),
      );
    }
  }
  return lists;
}

/** The catalogued set each check list stores, and the members computed live and never stored. */
const STORED: Record<string, { set: Record<string, string>; notStored?: string[] }> = {
  user_capabilities_capability: { set: Capability },
  memberships_role: { set: MembershipRole },
  user_roles_role: { set: GrantedRole },
  organization_invitations_role: { set: MembershipRole },
  campaigns_authored_status: { set: CampaignAuthoredStatus },
  campaigns_status: { set: CampaignStatus },
  campaigns_visibility: { set: Visibility },
  problems_structure: { set: Structure },
  problems_status: { set: ProblemStatus },
  problems_visibility: { set: Visibility },
  authoring_uploads_state: { set: UploadState },
  work_audit_subject_kind: { set: WorkSubjectKind },
  attempts_status: { set: AttemptStatus },
  attempts_outcome: { set: AttemptOutcome },
  notes_kind: { set: NoteKind },
  submissions_status: { set: SubmissionStatus },
  verification_runs_trigger: { set: RunTrigger },
  verification_runs_status: { set: RunStatus },
  verification_runs_result: { set: RunResult },
  verification_stage_results_kind: { set: StageKind },
  verification_stage_results_status: { set: RunStatus },
  verification_stage_results_result: { set: RunResult },
  sandbox_runtimes_backend: { set: RuntimeBackend },
  attestation_queue_reason: { set: AttestationReason },
  attestations_reason: { set: AttestationReason },
  sandbox_images_state: { set: ImageState, notStored: [ImageState.unbound] },
  review_processes_subject_kind: { set: SubjectKind },
  review_processes_status: { set: ProcessStatus },
  review_processes_outcome: { set: ReduceOutcome },
  review_processes_end_reason: { set: ProcessEndReason },
  review_nodes_type: { set: NodeType },
  review_nodes_status: { set: NodeStatus },
  review_nodes_outcome: { set: ReduceOutcome },
  review_assignments_kind: { set: ReviewerKind },
  review_assignments_status: { set: AssignmentStatus },
  final_entry_events_kind: { set: EntryEventKind },
  work_drafts_status: { set: DraftStatus },
  work_drafts_visibility: { set: Visibility },
  publication_requests_status: { set: PublicationRequestStatus },
  publication_requests_work_kind: { set: { campaign: "campaign", problem: "problem" } },
  publication_requests_visibility: { set: Visibility, notStored: [Visibility.private] },
  events_kind: { set: EventKind },
  event_subscriptions_delivery: { set: EventDelivery },
  criteria_changes_kind: { set: CriteriaChangeKind },
  agent_job_leases_kind: { set: AgentJobKind },
};

describe("the migrations' check lists and the schemas' closed sets", () => {
  const lists = checkLists();

  it("finds the check lists in the migrations", () => {
    expect(lists.size).toBeGreaterThan(20);
  });

  it("maps every check list to a catalogued set (a new one must be catalogued here)", () => {
    expect([...lists.keys()].filter((name) => !(name in STORED)).sort()).toEqual([]);
  });

  it.each(Object.entries(STORED))("%s stores exactly its set", (name, { set, notStored = [] }) => {
    const expected = Object.values(set).filter((member) => !notStored.includes(member));
    expect([...(lists.get(name) ?? [])].sort(), name).toEqual(expected.sort());
  });
});
