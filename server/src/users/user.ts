/** A User record as the service stores and reports it. */
export interface User {
  /** `usr_` and 20 characters of [0-9a-z]. */
  id: string;
  /** Unique; lowercase letters and digits in groups joined by single hyphens, at most 39 characters. */
  handle: string;
  /** The administrator role, read live by every action that needs it. */
  is_admin: boolean;
  created_at: Date;
}

/** The rule `users.handle` enforces, for messages that say how to fix a bad handle. */
export const HANDLE_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const HANDLE_MAX_LENGTH = 39;
