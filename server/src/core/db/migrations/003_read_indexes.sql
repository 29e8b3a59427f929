-- 003: indexes for the read paths' visibility checks. A mechanism (contract, protocol, skill
-- version) is as visible as the revisions that pin it, so reads look revisions up by the contract
-- they pin and by the skills in their skill_refs, and contracts by the protocols their stages name.
create index problem_revisions_contract on problem_revisions (verifier_contract_id)
  where verifier_contract_id is not null;
create index problem_revisions_skill_refs on problem_revisions using gin (skill_refs jsonb_path_ops);
create index verifier_contracts_stages on verifier_contracts using gin ((document -> 'stages') jsonb_path_ops);
create index review_protocols_nodes on review_protocols using gin ((document -> 'nodes') jsonb_path_ops);
