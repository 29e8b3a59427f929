/**
 * The strongly connected components of a directed graph that contain a cycle of two or more
 * nodes (self-loops are not looked for: callers leave them out of the graph), each sorted
 * ascending, ordered by their smallest index. Tarjan's algorithm; graphs here have at most
 * 16 nodes, so recursion depth is no concern.
 */
export function cyclicComponents(edges: ReadonlyArray<readonly number[]>): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const stack: number[] = [];
  const onStack = new Set<number>();
  const components: number[][] = [];
  let counter = 0;

  const visit = (v: number): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges[v] ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort((a, b) => a - b));
    }
  };

  for (let v = 0; v < edges.length; v += 1) if (!index.has(v)) visit(v);
  return components.sort((a, b) => a[0]! - b[0]!);
}

/** A shortest path `from` ... `to` following `edges` within `allowed`, or undefined. */
export function shortestPath(
  edges: ReadonlyArray<readonly number[]>,
  from: number,
  to: number,
  allowed: ReadonlySet<number>,
): number[] | undefined {
  const previous = new Map<number, number>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift()!;
    if (v === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
      return path;
    }
    for (const w of edges[v] ?? []) {
      if (allowed.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return undefined;
}
