// What an MCP server is built from: the same store, registry, capability service and planning
// services the daemon and the CLI use. The server adds no authority of its own.

import type { Principal } from '../access/permissions.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { PlanningServices } from '../execution/plan-intention.ts';
import type { Store } from '../store/index.ts';
import type { Caller } from './caller.ts';

export interface McpDeps {
  store: Store;
  registry: CapabilityRegistry;
  capabilities: CapabilityService;
  planning: PlanningServices;
}

export interface McpServerOptions extends McpDeps {
  /** Who is calling: fixed for the server's lifetime (one process, or one HTTP request). */
  principal: Principal;
}

/** What a tool body gets: the dependencies and the authenticated caller. */
export interface ToolContext extends McpDeps {
  caller: Caller;
}
