// Human-readable rendering of validation results for the terminal.

import type { Resources, ValidationIssue } from '../core/plan.ts';

export function describeIssue(severity: 'error' | 'warning', issue: ValidationIssue): string {
  const where = issue.path ? ` at ${issue.path}` : '';
  return `  ${severity} ${issue.code}${where}: ${issue.message}`;
}

export function describeEstimate(estimate: Resources): string {
  const parts = [
    `${estimate.invocations} invocation${estimate.invocations === 1 ? '' : 's'}`,
    `${estimate.approvals} approval${estimate.approvals === 1 ? '' : 's'}`,
    `${estimate.wall_seconds}s wall time`,
  ];
  if (estimate.network_ops > 0) parts.push(`${estimate.network_ops} network operations`);
  if (estimate.money > 0) parts.push(`money ${estimate.money}`);
  return parts.join(', ');
}

/** Rows as aligned columns under a header; the last column is never padded. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `${l}\n`).join('');
}

/** How long ago, in the largest whole unit: `45s`, `12m`, `3h`, `9d`. */
export function describeAge(then: Date, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Shortens text to `max` characters for a table cell, marking the cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
