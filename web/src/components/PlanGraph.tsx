// The plan's dependency graph: dagre lays it out left to right, SVG draws it. Nodes are coloured
// by step status (the legend lists every status), edges run from a prerequisite to the step that
// depends on it. Nodes are keyboard-focusable buttons that select the step. Titles wrap (a node
// grows to hold its whole title); the drawing fits its card (a small plan is not stretched), and
// a wide one can be zoomed (buttons, Ctrl + wheel) and panned (drag, or focus a node off view).

import dagre from '@dagrejs/dagre';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent, type WheelEvent } from 'react';
import { STEP_STATUSES, type StepView } from '../api/types.ts';
import { wrapTitle } from './wrap-title.ts';

const NODE_WIDTH = 210;
const LINE = 15;
const MARGIN = 16;
const MAX_ZOOM = 4;

/** Key line, title lines, and the status line below them with room to breathe. */
function nodeHeight(lines: number): number {
  return 44 + lines * LINE;
}

interface LaidOut {
  width: number;
  height: number;
  nodes: { step: StepView; x: number; y: number; lines: string[]; height: number }[];
  edges: { from: string; to: string; points: { x: number; y: number }[] }[];
}

export function layoutPlan(steps: readonly StepView[]): LaidOut {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  const keys = new Set(steps.map((step) => step.key));
  const lines = new Map(steps.map((step) => [step.key, wrapTitle(step.title || step.key)]));
  for (const step of steps) graph.setNode(step.key, { width: NODE_WIDTH, height: nodeHeight(lines.get(step.key)!.length) });
  for (const step of steps) {
    for (const dependency of step.dependsOn) if (keys.has(dependency)) graph.setEdge(dependency, step.key);
  }
  dagre.layout(graph);
  const label = graph.graph() as { width?: number; height?: number };
  const nodes = steps.map((step) => {
    const node = graph.node(step.key) as { x?: number; y?: number };
    const text = lines.get(step.key)!;
    return { step, x: node.x ?? 0, y: node.y ?? 0, lines: text, height: nodeHeight(text.length) };
  });
  const edges = graph.edges().map((edge) => {
    const data = graph.edge(edge) as { points?: { x: number; y: number }[] };
    return { from: edge.v, to: edge.w, points: data.points ?? [] };
  });
  return { width: Math.max(label.width ?? 0, NODE_WIDTH + 2 * MARGIN), height: Math.max(label.height ?? 0, nodeHeight(1) + 2 * MARGIN), nodes, edges };
}

interface View {
  zoom: number;
  /** Top-left corner of the visible part, in layout units. */
  x: number;
  y: number;
}

export function PlanGraph({ steps, selected, onSelect }: { steps: readonly StepView[]; selected: string | null; onSelect(key: string): void }) {
  const layout = useMemo(() => layoutPlan(steps), [steps]);
  const present = new Set(steps.map((step) => step.status));
  const [view, setView] = useState<View>({ zoom: 1, x: 0, y: 0 });
  const svgRef = useRef<SVGSVGElement | null>(null);
  const drag = useRef<{ id: number; x: number; y: number; view: View } | null>(null);
  const w = layout.width / view.zoom;
  const h = layout.height / view.zoom;
  const clamp = (next: View): View => {
    const zoom = Math.min(MAX_ZOOM, Math.max(1, next.zoom));
    return { zoom, x: Math.min(Math.max(0, next.x), layout.width - layout.width / zoom), y: Math.min(Math.max(0, next.y), layout.height - layout.height / zoom) };
  };
  // A new layout (a step added by a replan) starts fitted again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the layout's size is the trigger, not a value the effect reads.
  useEffect(() => setView({ zoom: 1, x: 0, y: 0 }), [layout.width, layout.height]);

  const zoomBy = (factor: number, cx = view.x + w / 2, cy = view.y + h / 2) =>
    setView((current) => {
      const zoom = Math.min(MAX_ZOOM, Math.max(1, current.zoom * factor));
      const nw = layout.width / zoom;
      const nh = layout.height / zoom;
      return clamp({ zoom, x: cx - ((cx - current.x) / (layout.width / current.zoom)) * nw, y: cy - ((cy - current.y) / (layout.height / current.zoom)) * nh });
    });
  const unitsPerPixel = () => w / (svgRef.current?.clientWidth || layout.width);

  const onPointerDown = (event: PointerEvent<SVGSVGElement>) => {
    if (view.zoom === 1 || (event.target as Element).closest('.node')) return;
    drag.current = { id: event.pointerId, x: event.clientX, y: event.clientY, view };
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    const start = drag.current;
    if (!start || start.id !== event.pointerId) return;
    const k = unitsPerPixel();
    setView(clamp({ ...start.view, x: start.view.x - (event.clientX - start.x) * k, y: start.view.y - (event.clientY - start.y) * k }));
  };
  const onPointerUp = () => {
    drag.current = null;
  };
  const onWheel = (event: WheelEvent<SVGSVGElement>) => {
    // Plain wheel scrolls the page; Ctrl (or a pinch, which browsers send as Ctrl + wheel) zooms.
    if (!event.ctrlKey && !event.metaKey) return;
    event.preventDefault();
    const box = event.currentTarget.getBoundingClientRect();
    const k = unitsPerPixel();
    zoomBy(event.deltaY < 0 ? 1.25 : 0.8, view.x + (event.clientX - box.left) * k, view.y + (event.clientY - box.top) * k);
  };
  /** A node reached by Tab while zoomed off view is brought into view. */
  const reveal = (x: number, y: number) => {
    if (x - NODE_WIDTH / 2 >= view.x && x + NODE_WIDTH / 2 <= view.x + w && y >= view.y && y <= view.y + h) return;
    setView((current) => clamp({ ...current, x: x - w / 2, y: y - h / 2 }));
  };
  const onKey = (key: string) => (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(key);
    }
  };
  const wide = layout.width > 900;
  return (
    <figure className="graph" aria-labelledby="graph-caption">
      <figcaption id="graph-caption" className="sr-only">
        Dependency graph with {steps.length} steps; select a step for its details.
      </figcaption>
      {wide && (
        <div className="graph-tools" role="toolbar" aria-label="Zoom the graph">
          <button type="button" className="quiet" onClick={() => zoomBy(1.5)} disabled={view.zoom >= MAX_ZOOM} data-testid="graph-zoom-in" aria-label="Zoom in">
            +
          </button>
          <button type="button" className="quiet" onClick={() => zoomBy(1 / 1.5)} disabled={view.zoom <= 1} data-testid="graph-zoom-out" aria-label="Zoom out">
            −
          </button>
          <button type="button" className="quiet" onClick={() => setView({ zoom: 1, x: 0, y: 0 })} disabled={view.zoom === 1} data-testid="graph-fit">
            Fit
          </button>
          <span className="muted small">{view.zoom > 1 ? 'drag to pan' : 'Ctrl + wheel zooms'}</span>
        </div>
      )}
      <div className="graph-frame">
        <svg
          ref={svgRef}
          data-testid="plan-graph"
          data-zoom={view.zoom.toFixed(2)}
          width="100%"
          style={{ maxWidth: `${layout.width}px`, cursor: view.zoom > 1 ? 'grab' : undefined }}
          viewBox={`${view.x} ${view.y} ${w} ${h}`}
          preserveAspectRatio="xMinYMin meet"
          role="group"
          aria-label="Plan dependency graph"
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={onPointerUp}
          onWheel={onWheel}
        >
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" className="edge-head" />
            </marker>
          </defs>
          {layout.edges.map((edge) => (
            <path key={`${edge.from}->${edge.to}`} className="edge" data-testid="graph-edge" data-from={edge.from} data-to={edge.to} d={pathOf(edge.points)} markerEnd="url(#arrow)" />
          ))}
          {layout.nodes.map(({ step, x, y, lines, height }) => (
            <g
              key={step.key}
              className={`node status-${step.status}${selected === step.key ? ' selected' : ''}`}
              transform={`translate(${x - NODE_WIDTH / 2}, ${y - height / 2})`}
              role="button"
              tabIndex={0}
              aria-pressed={selected === step.key}
              data-testid="graph-node"
              data-step-key={step.key}
              data-status={step.status}
              onClick={() => onSelect(step.key)}
              onKeyDown={onKey(step.key)}
              onFocus={() => reveal(x, y)}
            >
              <rect width={NODE_WIDTH} height={height} rx={8} ry={8} />
              {/* The button's name is its visible text (key, kind, title, status): the spaces keep the words apart. */}
              <text x={10} y={20} className="node-key">
                {`${step.key} `}
                <tspan className="node-kind" dx={2}>
                  {`${step.kind} `}
                </tspan>
              </text>
              <text x={10} y={20 + LINE} className="node-title" data-testid="node-title">
                {lines.map((line, i) => (
                  <tspan key={i} x={10} dy={i === 0 ? 0 : LINE}>
                    {`${line} `}
                  </tspan>
                ))}
              </text>
              <text x={10} y={height - 8} className="node-status">
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
