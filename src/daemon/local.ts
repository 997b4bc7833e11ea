// What a CLI command runs the operations on when it works against the store itself rather than
// through a running daemon: the same services the daemon composes (src/daemon/serve.ts), built
// here so the CLI, a surface, never reaches below src/operations. The capability registry, the
// capability service and the planning services are made on first use: a command that only reads
// never loads the daemon secret (which creating would write to disk) nor configures a model
// client, and one that checks no plan or parameters does not compile the capabilities' parameter
// schemas (about 75 ms of CPU, a fifth of such a command's start).

import { loadDaemonKey } from '../access/daemon-secret.ts';
import type { Principal } from '../access/permissions.ts';
import { CapabilityService } from '../capabilities/service.ts';
import { modelRoleProblems } from '../drafting/model-role.ts';
import { planningFromEnv, type PlanningServices } from '../drafting/plan-intention.ts';
import type { Problem } from '../core/errors.ts';
import type { Services } from '../operations/services.ts';
import { deferredBuiltins } from './implementations.ts';
import { localRegistry } from './registry.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { StdioSession } from '../mcp/stdio.ts';
import { openLocalStore } from './store-notice.ts';

// How a stdio session ended, for the CLI, which reaches the MCP server only through here.
export type { SessionEnd, StdioSession } from '../mcp/stdio.ts';

export interface LocalServices {
  services: Services;
  /** The store was not there before this command opened it (a new SQLite file, an unmigrated database). */
  created: string | null;
  close(): Promise<void>;
}

/**
 * What in the environment keeps a local command that plans (`praxis mcp`, `praxis intend`) from starting, as it
 * keeps the daemon from starting: model variables that name no usable model.
 */
export function localPlanningProblems(env: Record<string, string | undefined> = process.env): Problem[] {
  return modelRoleProblems(env);
}

/**
 * Opens the configured store (migrated to the latest schema) and the services over it. The
 * capability service is keyed with the daemon secret of this database (PRAXIS_SECRET_FILE, else
 * the one beside the SQLite file or in ./.praxis/ for PostgreSQL): what the CLI raises, the daemon
 * can verify, and back.
 */
export async function openLocalServices(db: string | undefined, options: { create?: boolean } = {}): Promise<LocalServices> {
  const { store, created, config } = await openLocalStore(db, options);
  let registry: CapabilityRegistry | undefined;
  let capabilities: CapabilityService | undefined;
  let planning: PlanningServices | undefined;
  const services: Services = {
    store,
    get registry() {
      registry ??= localRegistry();
      return registry;
    },
    get capabilities() {
      if (!capabilities) {
        const { key } = loadDaemonKey(config, process.env.PRAXIS_SECRET_FILE);
        capabilities = new CapabilityService(store, services.registry, deferredBuiltins(services.registry), { approvalKey: key });
      }
      return capabilities;
    },
    get planning() {
      planning ??= planningFromEnv(services.registry);
      return planning;
    },
  };
  return { services, created, close: () => store.close() };
}

/**
 * Serves MCP on stdin/stdout for `principal` over these services until `stop` fires or the
 * client hangs up, and says how the session ended. Composition, not a surface of its own: the
 * MCP server is the surface, and the CLI reaches it only through here. Its SDK is loaded here,
 * so other commands never pay for it. The services are handed on unread: a session that only
 * reads never makes the capability service, and so never writes the daemon secret.
 */
export async function serveMcpOnStdio(services: Services, principal: Principal, stop: AbortSignal): Promise<StdioSession> {
  const [{ serveMcpOverStdio }, { mcpOptions }] = await Promise.all([import('../mcp/stdio.ts'), import('../mcp/server.ts')]);
  return serveMcpOverStdio(mcpOptions(services, principal), undefined, stop);
}
