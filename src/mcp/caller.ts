// The caller of an MCP session and what it may reach. The operations check that a plan or an
// intention is of a mind the token reaches (src/mcp/refusal.ts answers both kinds of miss as
// not found); what is MCP's own is here: the role a tool needs, and which mind a call is about.

import { may, type Permission, type Principal } from '../access/permissions.ts';
import { boundMind, resolveMind, type MindRecord, type Services } from '../operations/index.ts';
import { refusal } from './refusal.ts';

export class Caller {
  readonly store: Services['store'];
  readonly principal: Principal;

  constructor(store: Services['store'], principal: Principal) {
    this.store = store;
    this.principal = principal;
  }

  /** Refuses unless the caller's role carries the permission. */
  require(permission: Permission, tool: string): void {
    if (!may(this.principal.role, permission)) {
      throw refusal('forbidden', '', `a ${this.principal.role} token may not ${permission}: ${tool} is refused`);
    }
  }

  /**
   * The mind a call is about. An agent token is bound to one mind, so naming it is optional and
   * naming any other (existing or not) is refused alike; any other token must name the mind.
   */
  async mind(nameOrId: string | undefined, path = 'mind'): Promise<MindRecord> {
    if (this.principal.mindId !== null) {
      const own = await boundMind(this.store, this.principal);
      if (!own) throw refusal('unknown_mind', path, 'the mind this token is bound to no longer exists');
      if (nameOrId !== undefined && nameOrId !== own.id && nameOrId !== own.name) {
        throw refusal('not_your_mind', path, `this token speaks for mind ${own.name} only`);
      }
      return own;
    }
    if (nameOrId === undefined || nameOrId.trim() === '') {
      throw refusal('missing_mind', path, `a ${this.principal.role} token sees every mind: name the mind (its name or id)`);
    }
    return resolveMind(this.store, this.principal, nameOrId, path);
  }
}
