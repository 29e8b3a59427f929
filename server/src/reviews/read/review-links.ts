/**
 * The web addresses of a review case and of an assignment (spec 4.1 "Links"), on the current
 * origin: `SVC_BASE_URL`, else the request's own. Both are served by `review-routes.ts`.
 */
export function caseUrl(baseUrl: string, processId: string, nodeId: string): string {
  return `${baseUrl}/reviews/${encodeURIComponent(processId)}/nodes/${encodeURIComponent(nodeId)}`;
}

/** The web address of one ReviewAssignment. */
export function assignmentUrl(baseUrl: string, assignmentId: string): string {
  return `${baseUrl}/review-assignments/${encodeURIComponent(assignmentId)}`;
}
