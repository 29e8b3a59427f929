/**
 * The life of an authoring upload (spec section 3). `request_authoring_upload` creates it
 * `requested` with the size and hash the author declares. The signed PUT stores the archive when
 * its bytes match both and moves it to `uploaded`; bytes that differ leave it `requested` and keep
 * nothing. `validate_authoring_upload` lints and reconciles: `validated` when publishable,
 * `invalid` otherwise; revalidating moves between the two as live state changes. Publication moves
 * a validated upload to `published` once and for all (the database refuses any later change of
 * state or result), so a republish can only return the recorded result. The states are
 * `UploadState` in @svc/schemas.
 */

/** The server's ceiling on an archive's zipped size (spec section 8): 64 MiB. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
