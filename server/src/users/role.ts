import { Role } from "@svc/schemas";

/**
 * Roles, checked live on each action from the user's current record and grants, independent of
 * what a token claims (spec 5.4). Every user is a contributor; author and trusted author come
 * from capability grants; administrator from the user's `is_admin`.
 */
export { Role };
