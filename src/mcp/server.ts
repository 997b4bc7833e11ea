// The MCP server: any model may propose and inspect plans through it, none holds authority.
// There is no tool to approve, deny, grant, change policy, run or release a step, or mark
// anything done; those decisions belong to operators on the API, the CLI and the console. What
// exists is reading (capabilities, policy previews, plans, timelines, memories) and proposing
// (intentions, plans, withdrawing one's own requests), each gated by the token's role and mind.

import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Principal } from '../access/permissions.ts';
import type { Services } from '../operations/services.ts';
import { Caller } from './caller.ts';
import type { McpServerOptions, ToolContext } from './deps.ts';
import { inputRefusal } from './refusal.ts';
import { registerResources } from './resources.ts';
import { registerCapabilityTools } from './tools/capabilities.ts';
import { registerIntentionTools } from './tools/intentions.ts';
import { registerPlanTools } from './tools/plans.ts';
import { registerPreviewTool } from './tools/preview.ts';
import { registerRequestTools } from './tools/requests.ts';
import { registerTimelineTool } from './tools/timeline.ts';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const INSTRUCTIONS = [
  'Praxis turns intentions into validated plans and runs them through typed capabilities under operator policy.',
  'You may read capabilities, preview policy decisions, form intentions, propose plans and read plans, timelines and procedural memories.',
  'You cannot approve, grant, change policy or run anything: writes wait for an operator. Propose, then watch the plan with show_plan.',
].join(' ');

/**
 * `track`, when given, is handed the work of every request a tool or resource serves, as it
 * starts: the stdio session waits for all of it before it ends, so the store is not closed under
 * a call still running (src/mcp/stdio.ts).
 */
export function createMcpServer(options: McpServerOptions, track?: (work: Promise<unknown>) => void): McpServer {
  const server = new McpServer({ name: 'praxis', version }, { instructions: INSTRUCTIONS });
  if (track) trackEveryRequest(server, track);
  checkEveryToolInput(server);
  // Read from the options when a tool uses them, not here: the local composition makes the
  // capability service (which writes the daemon secret) and the planning services on first use
  // (src/daemon/local.ts), and most tools need neither.
  const ctx: ToolContext = {
    store: options.store,
    get registry() {
      return options.registry;
    },
    get capabilities() {
      return options.capabilities;
    },
    get planning() {
      return options.planning;
    },
    caller: new Caller(options.store, options.principal),
  };
  registerCapabilityTools(server, ctx);
  registerIntentionTools(server, ctx);
  registerPlanTools(server, ctx);
  registerPreviewTool(server, ctx);
  registerTimelineTool(server, ctx);
  registerRequestTools(server, ctx);
  registerResources(server, ctx);
  return server;
}

/**
 * The server's options for `principal` over `services`, each service read from `services` only
 * when a tool uses it. Spreading `services` would read every one of them at once, and with it
 * create the daemon secret for a session that only reads.
 */
export function mcpOptions(services: Services, principal: Principal): McpServerOptions {
  return {
    get store() {
      return services.store;
    },
    get registry() {
      return services.registry;
    },
    get capabilities() {
      return services.capabilities;
    },
    get planning() {
      return services.planning;
    },
    principal,
  };
}

/**
 * Hands every request handler registered from here on (tools, resources and their listings) to
 * `track` as it runs. The SDK starts a handler without giving its promise to anyone, and
 * answers nothing once its transport is closed, so this is where the work can be seen.
 */
function trackEveryRequest(server: McpServer, track: (work: Promise<unknown>) => void): void {
  const protocol = server.server as unknown as { setRequestHandler(schema: unknown, handler: (...args: unknown[]) => unknown): void };
  const register = protocol.setRequestHandler.bind(protocol);
  protocol.setRequestHandler = (schema, handler) =>
    register(schema, (...args: unknown[]) => {
      const work = Promise.resolve().then(() => handler(...args));
      track(work);
      return work;
    });
}

/**
 * Every tool's arguments meet the input rule before the tool body runs: no control characters,
 * bounded strings, arrays and nesting (src/core/input-limits.ts). The SDK has checked their
 * schema already; this is the one place the rule is applied, so no tool can forget it.
 */
function checkEveryToolInput(server: McpServer): void {
  const register = server.registerTool.bind(server) as (name: string, config: { inputSchema?: unknown }, handler: (...args: unknown[]) => unknown) => unknown;
  (server as unknown as { registerTool: typeof register }).registerTool = (name, config, handler) =>
    register(name, config, (...args: unknown[]) => {
      // With an input schema the handler is called with (arguments, extra), else with (extra).
      if (config.inputSchema !== undefined) {
        const refused = inputRefusal(args[0]);
        if (refused) return refused;
      }
      return handler(...args);
    });
}
