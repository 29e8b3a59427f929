/** `svc://problem-revisions/<prv>/reference/<key>`: one bound reference input. */
export function referenceUri(revisionId: string, key: string): string {
  return `svc://problem-revisions/${revisionId}/reference/${key}`;
}
