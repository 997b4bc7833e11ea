// Ordering and cycle detection on small directed graphs (a plan has at most thirty steps).
// Pure and deterministic: the same nodes and edges always give the same answer, in the
// order the nodes were listed.

/** A directed edge `[from, to]`. */
export type Edge = readonly [from: string, to: string];

export interface TopologicalResult {
  /** Nodes in an order where every edge points forward (Kahn's algorithm). */
  order: string[];
  /** Nodes that could not be ordered: they lie on a cycle or after one. Empty for a DAG. */
  blocked: string[];
}

interface Graph {
  nodes: string[];
  index: Map<string, number>;
  /**
   * Edges between known nodes, each once, in input order. A proposal may repeat a dependency up
   * to the input limits (1,000 times per step): kept, they made every walk that many times
   * longer, and scoring a model's answer of 160 KB held the event loop for three minutes.
   */
  edges: [number, number][];
}

function buildGraph(nodes: readonly string[], edges: readonly Edge[]): Graph {
  const unique: string[] = [];
  const index = new Map<string, number>();
  for (const node of nodes) {
    if (!index.has(node)) {
      index.set(node, unique.length);
      unique.push(node);
    }
  }
  const known: [number, number][] = [];
  const seen = new Set<number>();
  for (const [from, to] of edges) {
    const a = index.get(from);
    const b = index.get(to);
    if (a === undefined || b === undefined || seen.has(a * unique.length + b)) continue;
    seen.add(a * unique.length + b);
    known.push([a, b]);
  }
  return { nodes: unique, index, edges: known };
}

/** Kahn's algorithm restricted to the nodes in `within`; returns the order and what is left. */
function kahn(graph: Graph, within: ReadonlySet<number>): { order: number[]; left: Set<number> } {
  const indegree = new Map<number, number>();
  const successors = new Map<number, number[]>();
  for (const n of within) {
    indegree.set(n, 0);
    successors.set(n, []);
  }
  for (const [a, b] of graph.edges) {
    if (!within.has(a) || !within.has(b)) continue;
    successors.get(a)!.push(b);
    indegree.set(b, indegree.get(b)! + 1);
  }
  const ready = [...within].filter((n) => indegree.get(n) === 0).sort((x, y) => x - y);
  const order: number[] = [];
  for (let head = 0; head < ready.length; head++) {
    const n = ready[head]!;
    order.push(n);
    for (const next of successors.get(n)!) {
      const d = indegree.get(next)! - 1;
      indegree.set(next, d);
      if (d === 0) ready.push(next);
    }
  }
  const left = new Set(within);
  for (const n of order) left.delete(n);
  return { order, left };
}

export function topologicalOrder(nodes: readonly string[], edges: readonly Edge[]): TopologicalResult {
  const graph = buildGraph(nodes, edges);
  const all = new Set(graph.nodes.map((_, i) => i));
  const { order, left } = kahn(graph, all);
  return {
    order: order.map((i) => graph.nodes[i]!),
    blocked: [...left].sort((x, y) => x - y).map((i) => graph.nodes[i]!),
  };
}

/** Nodes reachable from `start` inside `within`, following edges forward or backward. */
function reach(graph: Graph, start: number, within: ReadonlySet<number>, backward: boolean): Set<number> {
  const seen = new Set<number>([start]);
  const stack = [start];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const [a, b] of graph.edges) {
      const [from, to] = backward ? [b, a] : [a, b];
      if (from === n && within.has(to) && !seen.has(to)) {
        seen.add(to);
        stack.push(to);
      }
    }
  }
  return seen;
}

/**
 * One cycle per group of mutually dependent nodes (strongly connected component with a
 * cycle), each as the list of its nodes in edge order: `[a, b, c]` means a→b, b→c and c→a.
 * Each cycle starts at its earliest-listed node. Empty when the graph is acyclic.
 */
export function findCycles(nodes: readonly string[], edges: readonly Edge[]): string[][] {
  const graph = buildGraph(nodes, edges);
  let left = kahn(graph, new Set(graph.nodes.map((_, i) => i))).left;
  const cycles: number[][] = [];
  while (left.size > 0) {
    // What Kahn leaves behind has, for every node, an incoming edge from another node left
    // behind; walking such edges backwards must revisit a node, and the loop is a cycle.
    const walk: number[] = [];
    const position = new Map<number, number>();
    let current = Math.min(...left);
    while (!position.has(current)) {
      position.set(current, walk.length);
      walk.push(current);
      const edge = graph.edges.find(([a, b]) => b === current && left.has(a));
      if (!edge) throw new Error('graph: a blocked node has no blocked predecessor'); // cannot happen
      current = edge[0];
    }
    const cycle = walk.slice(position.get(current)).reverse();
    const first = cycle.indexOf(Math.min(...cycle));
    cycles.push([...cycle.slice(first), ...cycle.slice(0, first)]);

    // Drop the whole component this cycle belongs to, then let Kahn release the nodes that
    // were only waiting behind it; whatever remains holds further, separate cycles.
    const forward = reach(graph, cycle[0]!, left, false);
    const backward = reach(graph, cycle[0]!, left, true);
    const rest = new Set([...left].filter((n) => !(forward.has(n) && backward.has(n))));
    left = kahn(graph, rest).left;
  }
  return cycles.map((cycle) => cycle.map((i) => graph.nodes[i]!));
}

/** The first cycle `findCycles` reports, or null for an acyclic graph. */
export function findCycle(nodes: readonly string[], edges: readonly Edge[]): string[] | null {
  return findCycles(nodes, edges)[0] ?? null;
}

/** Whether `to` can be reached from `from` by following one or more edges. */
export function reaches(nodes: readonly string[], edges: readonly Edge[], from: string, to: string): boolean {
  const graph = buildGraph(nodes, edges);
  const a = graph.index.get(from);
  const b = graph.index.get(to);
  if (a === undefined || b === undefined) return false;
  const all = new Set(graph.nodes.map((_, i) => i));
  // One walk from a's successors: reach() counts its start as reached, so a path back to `from`
  // itself must take at least one edge.
  const seen = new Set<number>();
  for (const [x, y] of graph.edges) {
    if (x !== a || seen.has(y)) continue;
    for (const n of reach(graph, y, all, false)) seen.add(n);
  }
  return seen.has(b);
}
