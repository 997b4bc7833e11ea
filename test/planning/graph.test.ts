import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Edge } from '../../src/planning/graph.ts';
import { findCycle, findCycles, reaches, topologicalOrder } from '../../src/planning/graph.ts';

/** Reference: Floyd–Warshall transitive closure. reach[i][j] means a path of length >= 1 from i to j. */
function closure(n: number, edges: readonly [number, number][]): boolean[][] {
  const reach = Array.from({ length: n }, () => Array<boolean>(n).fill(false));
  for (const [a, b] of edges) reach[a]![b] = true;
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < n; i++) {
      if (!reach[i]![k]) continue;
      for (let j = 0; j < n; j++) if (reach[k]![j]) reach[i]![j] = true;
    }
  }
  return reach;
}

/** Random directed graphs of 1..30 nodes, self-loops and repeated edges included. */
const graphs = fc.integer({ min: 1, max: 30 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
  }),
);

const name = (i: number) => `S${i}`;

function asGraph(n: number, edges: readonly [number, number][]): { nodes: string[]; named: Edge[] } {
  return {
    nodes: Array.from({ length: n }, (_, i) => name(i)),
    named: edges.map(([a, b]) => [name(a), name(b)] as const),
  };
}

describe('cycle detection', () => {
  it('finds a cycle exactly when some node reaches itself (Floyd–Warshall reference)', () => {
    fc.assert(
      fc.property(graphs, ({ n, edges }) => {
        const reach = closure(n, edges);
        const cyclic = reach.some((row, i) => row[i]);
        const { nodes, named } = asGraph(n, edges);
        assert.equal(findCycle(nodes, named) !== null, cyclic);
        assert.equal(topologicalOrder(nodes, named).blocked.length > 0, cyclic);
      }),
      { numRuns: 500 },
    );
  });

  it('reports only real cycles: consecutive steps are edges and the last closes on the first', () => {
    fc.assert(
      fc.property(graphs, ({ n, edges }) => {
        const { nodes, named } = asGraph(n, edges);
        const edgeSet = new Set(named.map(([a, b]) => `${a}>${b}`));
        for (const cycle of findCycles(nodes, named)) {
          assert.ok(cycle.length >= 1);
          assert.equal(new Set(cycle).size, cycle.length, 'a cycle visits each node once');
          for (let i = 0; i < cycle.length; i++) {
            const from = cycle[i]!;
            const to = cycle[(i + 1) % cycle.length]!;
            assert.ok(edgeSet.has(`${from}>${to}`), `${from} -> ${to} is not an edge`);
          }
          // It starts at its earliest-listed node.
          const indices = cycle.map((s) => Number(s.slice(1)));
          assert.equal(indices[0], Math.min(...indices));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reports one cycle per group of mutually reachable nodes that contains a cycle', () => {
    fc.assert(
      fc.property(graphs, ({ n, edges }) => {
        const reach = closure(n, edges);
        // Components with a cycle: nodes that reach themselves, grouped by mutual reachability.
        const groups = new Set<string>();
        for (let i = 0; i < n; i++) {
          if (!reach[i]![i]) continue;
          const members = [];
          for (let j = 0; j < n; j++) if (i === j || (reach[i]![j] && reach[j]![i])) members.push(j);
          groups.add(members.join(','));
        }
        const { nodes, named } = asGraph(n, edges);
        const cycles = findCycles(nodes, named);
        assert.equal(cycles.length, groups.size);
        // Each reported cycle lies inside one of those groups, and no two share a group.
        const used = new Set<string>();
        for (const cycle of cycles) {
          const i = Number(cycle[0]!.slice(1));
          const group = [...groups].find((g) => g.split(',').includes(String(i)))!;
          assert.ok(group, 'the cycle lies in a cyclic group');
          for (const s of cycle) assert.ok(group.split(',').includes(s.slice(1)));
          assert.ok(!used.has(group), 'one cycle per group');
          used.add(group);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('orders an acyclic graph so every edge points forward, and blocks exactly what a cycle holds back', () => {
    fc.assert(
      fc.property(graphs, ({ n, edges }) => {
        const reach = closure(n, edges);
        const { nodes, named } = asGraph(n, edges);
        const { order, blocked } = topologicalOrder(nodes, named);
        assert.equal(order.length + blocked.length, n);
        const position = new Map(order.map((s, i) => [s, i]));
        for (const [a, b] of named) {
          if (position.has(a) && position.has(b)) assert.ok(position.get(a)! < position.get(b)!);
        }
        // A node is blocked iff a node on a cycle reaches it (or it is on one).
        for (let j = 0; j < n; j++) {
          let held = reach[j]![j]!;
          for (let i = 0; i < n && !held; i++) held = reach[i]![i]! && reach[i]![j]!;
          assert.equal(blocked.includes(name(j)), held, `${name(j)}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers reachability like the reference', () => {
    fc.assert(
      fc.property(graphs, fc.nat(29), fc.nat(29), ({ n, edges }, x, y) => {
        const [a, b] = [x % n, y % n];
        const { nodes, named } = asGraph(n, edges);
        assert.equal(reaches(nodes, named, name(a), name(b)), closure(n, edges)[a]![b]);
      }),
      { numRuns: 300 },
    );
  });

  it('names the cycle in edge order, from the first listed node', () => {
    const nodes = ['P1', 'V1', 'W1', 'X'];
    const edges: Edge[] = [
      ['V1', 'W1'],
      ['W1', 'P1'],
      ['P1', 'V1'],
      ['X', 'P1'],
    ];
    assert.deepEqual(findCycle(nodes, edges), ['P1', 'V1', 'W1']);
    assert.deepEqual(findCycle(['A', 'B'], [['A', 'B']]), null);
    assert.deepEqual(findCycle(['A'], [['A', 'A']]), ['A']);
    assert.deepEqual(
      findCycles(
        ['A', 'B', 'C', 'D'],
        [
          ['A', 'B'],
          ['B', 'A'],
          ['C', 'D'],
          ['D', 'C'],
          ['B', 'C'],
        ],
      ),
      [
        ['A', 'B'],
        ['C', 'D'],
      ],
    );
  });

  it('ignores edges to unknown nodes and repeated nodes', () => {
    assert.deepEqual(
      topologicalOrder(
        ['A', 'B', 'A'],
        [
          ['A', 'B'],
          ['B', 'Z'],
          ['Z', 'A'],
        ],
      ),
      { order: ['A', 'B'], blocked: [] },
    );
  });
});
