/** Media types derived from file extensions (decisions.md); anything else is octet-stream. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  json: "application/json",
  md: "text/markdown",
  txt: "text/plain",
  csv: "text/csv",
  cnf: "text/plain",
  dimacs: "text/plain",
  py: "text/x-python",
  zip: "application/zip",
  png: "image/png",
  pdf: "application/pdf",
};

export function mediaTypeOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return BY_EXTENSION[filename.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}
