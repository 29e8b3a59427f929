/**
 * Runs tasks with the same key one after another (a commit's pull_request and check_suite events
 * arrive together; the second then finds the first's check runs and posts nothing new). Tasks
 * with different keys run concurrently.
 */
export function serializeByKey(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
