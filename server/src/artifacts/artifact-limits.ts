/**
 * Size ceilings of Artifacts. `upload_artifact` carries the bytes inside one MCP request, whose
 * body the endpoint caps at 1 MiB; 512 KiB decoded leaves room for base64's third and the JSON
 * around it. Anything larger goes through `request_artifact_upload`'s signed PUT, up to 256 MiB
 * (the server's unpacked-archive ceiling, spec 8), which no Contract role is expected to exceed.
 */
export const MAX_INLINE_ARTIFACT_BYTES = 512 * 1024;

/** The largest Artifact, whatever the path it arrives by. */
export const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024;
