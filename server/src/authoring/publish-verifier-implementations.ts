import { IdPrefix } from "@svc/schemas";
import { enqueueConformance } from "../conformance/enqueue-conformance.ts";
import { randomId } from "../core/ids/random-id.ts";
import { byteOrder, type PublishContext } from "./publish-context.ts";

/**
 * Step 4: one VerifierImplementation per planned implementation and Contract stage (never shared
 * across Contracts). The same content hash on the same stage reuses the record; anything else is
 * the stage's next version_number, conformance pending until the worker runs the fixtures: the
 * job is enqueued in the publishing transaction, so a published implementation always gets its
 * conformance run. Returns every `vfi_` id the package resolved to, created or reused.
 */
export async function publishVerifierImplementations(
  ctx: PublishContext,
  contractIds: ReadonlyMap<string, string>,
): Promise<string[]> {
  const { tx, userId } = ctx;
  const ids: string[] = [];
  const planned = Object.values(ctx.plan.verifier_implementations).sort((a, b) =>
    byteOrder(a.content_hash, b.content_hash),
  );
  for (const implementation of planned) {
    for (const stage of implementation.stages) {
      const contractId = contractIds.get(stage.verifier_contract);
      if (!contractId)
        throw new Error(`the plan names contract ${stage.verifier_contract} without planning it`);
      const [existing] = await tx<{ id: string }[]>`
        select id from verifier_implementations
        where verifier_contract_id = ${contractId} and stage_key = ${stage.stage_key}
          and content_hash = ${implementation.content_hash}`;
      if (existing) {
        ids.push(existing.id);
        continue;
      }
      const id = randomId(IdPrefix.verifierImplementation);
      const [created] = await tx<{ version_number: number }[]>`
        insert into verifier_implementations
          (id, verifier_contract_id, stage_key, version_number, runtime, entrypoint, limits, content_hash, program,
           source, created_by_user_id)
        values (${id}, ${contractId}, ${stage.stage_key},
          (select coalesce(max(version_number), 0) + 1 from verifier_implementations
           where verifier_contract_id = ${contractId} and stage_key = ${stage.stage_key}),
          ${tx.json(implementation.runtime as never)}, ${tx.json(implementation.entrypoint)},
          ${tx.json(implementation.limits as never)}, ${implementation.content_hash},
          ${implementation.program ? tx.json(implementation.program as never) : null},
          ${tx.json((implementation.source ?? NO_SOURCE) as never)}, ${userId})
        returning version_number`;
      ids.push(id);
      await enqueueConformance(tx, id);
      ctx.audit.push({
        action: "create",
        subject_kind: "verifier_implementation",
        subject_id: id,
        detail: {
          verifier_contract_id: contractId,
          stage_key: stage.stage_key,
          version_number: created!.version_number,
        },
      });
    }
  }
  return ids;
}

/** An implementation whose package states no source: all three keys, null (spec 2.2). */
const NO_SOURCE = { source_uri: null, source_revision: null, license: null };
