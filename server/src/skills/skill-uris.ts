/** `svc://skill-versions/<skv>/<path>`; an empty path is the manifest. Path segments are percent-encoded. */
export function skillVersionUri(skillVersionId: string, path = ""): string {
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  return `svc://skill-versions/${skillVersionId}/${encoded}`;
}
