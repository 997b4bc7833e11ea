// What an MCP server is built from: the same services the daemon and the CLI use. The server
// adds no authority of its own.

import type { Principal } from '../access/permissions.ts';
import type { Services } from '../operations/services.ts';
import type { Caller } from './caller.ts';

export type McpServerOptions = Services & {
  /** Who is calling: fixed for the server's lifetime (one process, or one HTTP request). */
  principal: Principal;
};

/** What a tool body gets: the services and the authenticated caller. */
export interface ToolContext extends Services {
  caller: Caller;
}
