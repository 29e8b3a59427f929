import postgres from "postgres";

/** Whether `error` is PostgreSQL's unique_violation (23505) on the named constraint. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  return (
    error instanceof postgres.PostgresError && error.code === "23505" && error.constraint_name === constraint
  );
}
