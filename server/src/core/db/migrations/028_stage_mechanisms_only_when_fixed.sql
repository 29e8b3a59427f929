-- 028: a stage result's mechanism is stored only once it is fixed (spec 2.4: exactly one member
-- non-null, matching the stage's kind). Rows written before stored `{sandbox: null, review:
-- null, external: null}` for a stage that ran no mechanism, and no mechanism at all for a review
-- stage while its process ran, so records served from them failed the VerificationRun schema.
-- A review stage gets its process's mechanism; every other all-null mechanism becomes null (the
-- stage never ran one; records list only the stages attempted, stage-record.ts). Finished rows are
-- write-once, so their guard is held off for this one correction and restored.
alter table verification_stage_results disable trigger verification_stage_results_finish_once;

update verification_stage_results st
set mechanism = jsonb_build_object('sandbox', null, 'external', null, 'review', jsonb_build_object(
  'review_process_id', p.id, 'protocol_hash', p.protocol_hash, 'review_protocol_id', p.review_protocol_id))
from review_processes p
where st.kind = 'review'
  and p.verification_run_id = st.verification_run_id and p.stage_key = st.stage_key
  and coalesce(st.mechanism -> 'review', 'null'::jsonb) = 'null'::jsonb;

update verification_stage_results
set mechanism = null
where mechanism is not null
  and coalesce(mechanism -> 'sandbox', 'null'::jsonb) = 'null'::jsonb
  and coalesce(mechanism -> 'review', 'null'::jsonb) = 'null'::jsonb
  and coalesce(mechanism -> 'external', 'null'::jsonb) = 'null'::jsonb;

alter table verification_stage_results enable trigger verification_stage_results_finish_once;
