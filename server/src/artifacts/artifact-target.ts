/** The `/dl/` target of one Artifact: the route re-reads the row, so a withdrawn one answers 410. */
export function artifactTarget(artifactId: string): string {
  return `artifact:${artifactId}`;
}
