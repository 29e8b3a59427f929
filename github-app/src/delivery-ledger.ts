/**
 * The deliveries this process has taken, by `X-GitHub-Delivery` id: a redelivery of one already
 * taken (GitHub keeps the id when redelivering) joins the first handling instead of starting
 * another. Bounded: the oldest ids are forgotten first. Across restarts the check runs themselves
 * make handling idempotent (see publishCommit and checkCommit); this only spares the work.
 */
export class DeliveryLedger {
  readonly #taken = new Map<string, Promise<void>>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  /** Runs `handle` for a delivery seen for the first time; otherwise returns the first run's promise. */
  take(id: string, handle: () => Promise<void>): { first: boolean; done: Promise<void> } {
    const seen = this.#taken.get(id);
    if (seen) return { first: false, done: seen };
    const done = handle();
    this.#taken.set(id, done);
    // A failed handling is forgotten, so a redelivery may try again.
    done.catch(() => this.#taken.delete(id));
    if (this.#taken.size > this.#capacity) this.#taken.delete(this.#taken.keys().next().value!);
    return { first: true, done };
  }
}
