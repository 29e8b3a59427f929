-- 031: signed attestations of verification runs and the transparency log they are appended to
-- (issue 34, docs/attestations.md). A run's transaction only queues it (a trigger, so every path
-- that finishes, revokes or redacts a run is covered and none takes a lock); the sequencer
-- (server/src/attestations/sequence-attestations.ts) signs queued runs in batches and appends them
-- to the log in one transaction with the new signed checkpoint. Merged migrations are never edited.

-- The service's Ed25519 signing keys. One is active (valid_until null); rotated keys stay published
-- with their validity window so older attestations and checkpoints keep verifying.
create table attestation_keys (
  -- hex sha256 of the raw 32-byte public key: the `keyid` of DSSE signatures.
  key_id text primary key constraint attestation_keys_id check (key_id ~ '^[0-9a-f]{64}$'),
  public_key bytea not null constraint attestation_keys_public check (length(public_key) = 32),
  -- PKCS#8 DER; null when the private key is a configured secret (SVC_ATTESTATION_KEY), never stored.
  private_key bytea,
  valid_from timestamptz not null,
  valid_until timestamptz,
  created_at timestamptz not null default now(),
  constraint attestation_keys_window check (valid_until is null or valid_until >= valid_from)
);
create unique index attestation_keys_one_active on attestation_keys ((true)) where valid_until is null;

-- The log's fixed facts and its size (one row): the origin line of every checkpoint.
create table transparency_log (
  singleton boolean primary key default true constraint transparency_log_one_row check (singleton),
  origin text not null constraint transparency_log_origin check (origin ~ '^[\x21-\x7e]{1,200}$'),
  tree_size bigint not null default 0 constraint transparency_log_size check (tree_size >= 0)
);

-- Runs waiting for their attestation, in the order their transactions queued them.
create table attestation_queue (
  id bigint generated always as identity primary key,
  verification_run_id text not null references verification_runs (id),
  reason text not null constraint attestation_queue_reason check (reason in ('finished', 'revoked', 'log_redacted')),
  queued_at timestamptz not null default now()
);

-- Every attestation, one log entry each: log_index is its leaf's position in the tree.
create table attestations (
  log_index bigint primary key constraint attestations_index check (log_index >= 0),
  verification_run_id text not null references verification_runs (id),
  reason text not null constraint attestations_reason check (reason in ('finished', 'revoked', 'log_redacted')),
  -- The exact bytes of the DSSE envelope (JSON text): the leaf is sha256(0x00 || these bytes).
  envelope text not null,
  payload_sha256 text not null constraint attestations_payload check (payload_sha256 ~ '^sha256:[0-9a-f]{64}$'),
  key_id text not null references attestation_keys (key_id),
  -- The attestation this one follows for the same run (revocation, redaction) or Submission (rerun).
  supersedes_log_index bigint references attestations (log_index),
  -- {"<pointer>": {nonce, value}} for each commitment standing in for a withheld value; served once released.
  openings jsonb,
  issued_at timestamptz not null
);
create index attestations_by_run on attestations (verification_run_id, log_index);
create trigger attestations_append_only before update on attestations
  for each row execute function svc_append_only();
create trigger attestations_no_delete before delete on attestations
  for each row execute function svc_no_delete();

-- The hash of every perfect subtree the log completed: 2^level leaves from idx * 2^level (RFC 9162).
create table transparency_log_nodes (
  level smallint not null constraint transparency_log_nodes_level check (level between 0 and 62),
  idx bigint not null constraint transparency_log_nodes_idx check (idx >= 0),
  hash bytea not null constraint transparency_log_nodes_hash check (length(hash) = 32),
  primary key (level, idx)
);

-- Every signed checkpoint, one per integrated batch (C2SP tlog-checkpoint notes).
create table transparency_log_checkpoints (
  tree_size bigint primary key constraint transparency_log_checkpoints_size check (tree_size >= 0),
  root_hash bytea not null constraint transparency_log_checkpoints_root check (length(root_hash) = 32),
  note text not null,
  key_id text not null references attestation_keys (key_id),
  signed_at timestamptz not null
);

create function svc_queue_attestation() returns trigger language plpgsql as $$
begin
  insert into attestation_queue (verification_run_id, reason) values (new.id, tg_argv[0]);
  return null;
end $$;

create trigger verification_runs_attest_finished after update of status on verification_runs
  for each row when (new.status = 'finished' and old.status is distinct from 'finished')
  execute function svc_queue_attestation('finished');
create trigger verification_runs_attest_inserted_finished after insert on verification_runs
  for each row when (new.status = 'finished')
  execute function svc_queue_attestation('finished');
create trigger verification_runs_attest_revoked after update of revocation on verification_runs
  for each row when (old.revocation is null and new.revocation is not null)
  execute function svc_queue_attestation('revoked');

create function svc_queue_redaction_attestation() returns trigger language plpgsql as $$
begin
  insert into attestation_queue (verification_run_id, reason) values (new.verification_run_id, 'log_redacted');
  return null;
end $$;
create trigger verification_stage_results_attest_redacted after update of log on verification_stage_results
  for each row when (
    coalesce(old.log -> 'redaction', 'null'::jsonb) = 'null'::jsonb
    and coalesce(new.log -> 'redaction', 'null'::jsonb) <> 'null'::jsonb)
  execute function svc_queue_redaction_attestation();

-- Runs that finished before this migration are attested too, oldest first; revoked ones then
-- get their revocation attestation after it.
insert into attestation_queue (verification_run_id, reason)
  select id, 'finished' from verification_runs where status = 'finished' order by finished_at, id;
insert into attestation_queue (verification_run_id, reason)
  select id, 'revoked' from verification_runs where revocation is not null order by (revocation ->> 'revoked_at'), id;
