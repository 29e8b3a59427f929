/** How many calls one grouped statement carries at most; the rest go in the next. */
export const GROUP_LIMIT = 64;

/**
 * Sends concurrent calls of one statement as one statement, the way PostgreSQL groups commits:
 * a call made while nothing is in flight waits only for the end of the current turn of the event
 * loop (calls made in the same turn go with it); calls made while a statement is in flight go
 * together as soon as it returns. So one call alone costs what it did, and under load many runs
 * share a round trip, a plan and a commit. `send` gets the inputs in call order and returns one
 * output per input, in the same order.
 *
 * A failed group is sent again one call at a time, so a bad input fails only its own call.
 */
export function groupedStatement<Input, Output>(
  send: (inputs: Input[]) => Promise<Output[]>,
): (input: Input) => Promise<Output> {
  interface Call {
    input: Input;
    resolve: (output: Output) => void;
    reject: (error: unknown) => void;
  }
  let waiting: Call[] = [];
  let busy = false;

  async function sendGroup(calls: Call[]): Promise<void> {
    try {
      const outputs = await send(calls.map((call) => call.input));
      if (outputs.length !== calls.length) {
        throw new Error(`a grouped statement returned ${outputs.length} outputs for ${calls.length} inputs`);
      }
      for (const [i, call] of calls.entries()) call.resolve(outputs[i]!);
    } catch (error) {
      if (calls.length === 1) {
        calls[0]!.reject(error);
        return;
      }
      for (const call of calls) await sendGroup([call]);
    }
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const calls = waiting.slice(0, GROUP_LIMIT);
      waiting = waiting.slice(calls.length);
      await sendGroup(calls);
    }
    busy = false;
  }

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!busy) {
        busy = true;
        setImmediate(() => void drain());
      }
    });
}

/**
 * groupedStatement per connection pool: `send` gets the pool the calls were made on, and calls
 * on different pools (a test's services, say) are never grouped together.
 */
export function groupedStatementOn<Pool extends object, Input, Output>(
  send: (pool: Pool, inputs: Input[]) => Promise<Output[]>,
): (pool: Pool, input: Input) => Promise<Output> {
  const byPool = new WeakMap<Pool, (input: Input) => Promise<Output>>();
  return (pool, input) => {
    let call = byPool.get(pool);
    if (!call) {
      call = groupedStatement((inputs: Input[]) => send(pool, inputs));
      byPool.set(pool, call);
    }
    return call(input);
  };
}
