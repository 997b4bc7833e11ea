// What the surfaces run the application on: the same store, registry, capability service and
// planning services for the HTTP API, the MCP server and the CLI.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { PlanningServices } from '../drafting/plan-intention.ts';
import type { Store } from '../store/index.ts';

export interface Services {
  store: Store;
  registry: CapabilityRegistry;
  capabilities: CapabilityService;
  planning: PlanningServices;
}
