import { hashJson } from "@svc/app";
import { IdPrefix } from "@svc/schemas";
import { randomId } from "../core/ids/random-id.ts";
import { byteOrder, type PublishContext } from "./publish-context.ts";

/**
 * Step 3: one VerifierContract per planned contract, a local `./review-protocol.json` (planned as
 * the protocol's content hash) replaced by the published `rpt_` id. Content-addressed per
 * publisher: the same published document reuses its record. Returns `vct_` ids by plan hash.
 */
export async function publishVerifierContracts(
  ctx: PublishContext,
  protocolIds: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const { tx, userId } = ctx;
  const ids = new Map<string, string>();
  const planned = Object.values(ctx.plan.verifier_contracts).sort((a, b) =>
    byteOrder(a.content_hash, b.content_hash),
  );
  for (const { content_hash: planHash, document: plannedDocument } of planned) {
    const document = structuredClone(plannedDocument);
    for (const stage of document.stages) {
      if (stage.review_protocol_id)
        stage.review_protocol_id = protocolIds.get(stage.review_protocol_id) ?? stage.review_protocol_id;
    }
    const contentHash = hashJson(document);
    const [existing] = await tx<{ id: string }[]>`
      select id from verifier_contracts where publisher_user_id = ${userId} and content_hash = ${contentHash}`;
    if (existing) {
      ids.set(planHash, existing.id);
      continue;
    }
    const id = randomId(IdPrefix.verifierContract);
    await tx`
      insert into verifier_contracts (id, publisher_user_id, content_hash, document)
      values (${id}, ${userId}, ${contentHash}, ${tx.json(document as never)})`;
    ids.set(planHash, id);
    ctx.audit.push({
      action: "create",
      subject_kind: "verifier_contract",
      subject_id: id,
      detail: { title: document.title },
    });
  }
  return ids;
}
