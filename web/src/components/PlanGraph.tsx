// The plan's dependency graph: dagre lays it out left to right, SVG draws it. Nodes are coloured
// by step status (the legend lists every status), edges run from a prerequisite to the step that
// depends on it. Nodes are keyboard-focusable buttons that select the step.

import dagre from '@dagrejs/dagre';
import { useMemo, type KeyboardEvent } from 'react';
import { STEP_STATUSES, type StepView } from '../api/types.ts';

const NODE_WIDTH = 190;
const NODE_HEIGHT = 58;
const MARGIN = 16;

interface LaidOut {
  width: number;
  height: number;
  nodes: { step: StepView; x: number; y: number }[];
  edges: { from: string; to: string; points: { x: number; y: number }[] }[];
}

export function layoutPlan(steps: readonly StepView[]): LaidOut {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  const keys = new Set(steps.map((step) => step.key));
  for (const step of steps) graph.setNode(step.key, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const step of steps) {
    for (const dependency of step.dependsOn) if (keys.has(dependency)) graph.setEdge(dependency, step.key);
  }
  dagre.layout(graph);
  const label = graph.graph() as { width?: number; height?: number };
  const nodes = steps.map((step) => {
    const node = graph.node(step.key) as { x?: number; y?: number };
    return { step, x: node.x ?? 0, y: node.y ?? 0 };
  });
  const edges = graph.edges().map((edge) => {
    const data = graph.edge(edge) as { points?: { x: number; y: number }[] };
    return { from: edge.v, to: edge.w, points: data.points ?? [] };
  });
  return { width: Math.max(label.width ?? 0, NODE_WIDTH + 2 * MARGIN), height: Math.max(label.height ?? 0, NODE_HEIGHT + 2 * MARGIN), nodes, edges };
}

export function PlanGraph({
  steps,
  selected,
  onSelect,
}: {
  steps: readonly StepView[];
  selected: string | null;
  onSelect(key: string): void;
}) {
  const layout = useMemo(() => layoutPlan(steps), [steps]);
  const present = new Set(steps.map((step) => step.status));
  const onKey = (key: string) => (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(key);
    }
  };
  return (
    <figure className="graph" aria-labelledby="graph-caption">
      <figcaption id="graph-caption" className="sr-only">
        Dependency graph with {steps.length} steps; select a step for its details.
      </figcaption>
      <div className="graph-scroll">
        <svg
          data-testid="plan-graph"
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="group"
          aria-label="Plan dependency graph"
        >
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" className="edge-head" />
            </marker>
          </defs>
          {layout.edges.map((edge) => (
            <path
              key={`${edge.from}->${edge.to}`}
              className="edge"
              data-testid="graph-edge"
              data-from={edge.from}
              data-to={edge.to}
              d={pathOf(edge.points)}
              markerEnd="url(#arrow)"
            />
          ))}
          {layout.nodes.map(({ step, x, y }) => (
            <g
              key={step.key}
              className={`node status-${step.status}${selected === step.key ? ' selected' : ''}`}
              transform={`translate(${x - NODE_WIDTH / 2}, ${y - NODE_HEIGHT / 2})`}
              role="button"
              tabIndex={0}
              aria-pressed={selected === step.key}
              aria-label={`Step ${step.key}: ${step.title}, ${step.kind}, ${step.status.replace(/_/g, ' ')}`}
              data-testid="graph-node"
              data-step-key={step.key}
              data-status={step.status}
              onClick={() => onSelect(step.key)}
              onKeyDown={onKey(step.key)}
            >
              <title>{`${step.key}: ${step.title} (${step.status})`}</title>
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={8} ry={8} />
              <text x={10} y={20} className="node-key">
                {step.key}
                <tspan className="node-kind" dx={6}>
                  {step.kind}
                </tspan>
              </text>
              <text x={10} y={36} className="node-title">
                {truncate(step.title, 26)}
              </text>
              <text x={10} y={51} className="node-status">
                {step.status.replace(/_/g, ' ')}
              </text>
            </g>
          ))}
        </svg>
      </div>
      <ul className="legend" aria-label="Step status colours">
        {STEP_STATUSES.map((status) => (
          <li key={status} className={present.has(status) ? 'present' : undefined}>
            <span className={`swatch status-${status}`} aria-hidden="true" />
            {status.replace(/_/g, ' ')}
          </li>
        ))}
      </ul>
    </figure>
  );
}

function pathOf(points: { x: number; y: number }[]): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  if (!first) return '';
  if (rest.length === 0) return `M ${first.x} ${first.y}`;
  // A smooth curve through dagre's control points: quadratic segments between midpoints.
  let d = `M ${first.x} ${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const control = rest[i]!;
    const next = rest[i + 1]!;
    d += ` Q ${control.x} ${control.y} ${(control.x + next.x) / 2} ${(control.y + next.y) / 2}`;
  }
  const last = rest[rest.length - 1]!;
  d += ` L ${last.x} ${last.y}`;
  return d;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
