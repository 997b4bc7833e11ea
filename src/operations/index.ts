// Application operations shared by the HTTP API, the CLI and the MCP server: each takes a
// store, its inputs and the acting principal, and answers a value or throws an InputError
// (NotFound, Conflict, Forbidden, NotStored say which kind of refusal it is).

export * from './errors.ts';
export type * from './services.ts';
export * from './pages.ts';
export * from './minds.ts';
export * from './mind-copies.ts';
export * from './mind-plans.ts';
export * from './plan-preview.ts';
export * from './dreams.ts';
export * from './plans.ts';
export * from './plan-pauses.ts';
export * from './intentions.ts';
export * from './decisions.ts';
export * from './amendments.ts';
export * from './catalogue.ts';
export * from './one-off-calls.ts';
export * from './timeline.ts';
export * from './event-feed.ts';
export * from './withdrawals.ts';
export * from './webhook-deliveries.ts';
export * from './plan-text.ts';
export * from './plan-budget.ts';
export type * from './records.ts';
