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
