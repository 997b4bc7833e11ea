// The caller of an MCP session and what it may reach. Every tool and resource finds minds, plans
// and intentions through here, so ownership is checked in one place: an agent token reaches its
// own mind only, and something of another mind answers exactly like something that does not
// exist, so a caller learns nothing about minds it cannot see.

import { may, mayActOnMind, type Permission, type Principal } from '../access/permissions.ts';
import { isId } from '../core/ids.ts';
import type { IntentionRecord, MindRecord, PlanWithSteps, Store } from '../store/index.ts';
import { refusal } from './refusal.ts';

export class Caller {
  readonly store: Store;
  readonly principal: Principal;

  constructor(store: Store, principal: Principal) {
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
   * naming another is refused; any other token must name the mind (by name or id).
   */
  async mind(nameOrId: string | undefined, path = 'mind'): Promise<MindRecord> {
    const bound = this.principal.mindId;
    if (bound !== null) {
      const own = await this.store.minds.get(bound);
      if (!own) throw refusal('unknown_mind', path, 'the mind this token is bound to no longer exists');
      if (nameOrId !== undefined && nameOrId !== own.id && nameOrId !== own.name) {
        throw refusal('not_your_mind', path, `this token speaks for mind ${own.name} only`);
      }
      return own;
    }
    if (nameOrId === undefined || nameOrId.trim() === '') {
      throw refusal('missing_mind', path, `a ${this.principal.role} token sees every mind: name the mind (its name or id)`);
    }
    const mind = isId(nameOrId) ? await this.store.minds.get(nameOrId) : await this.store.minds.getByName(nameOrId);
    if (!mind) throw refusal('unknown_mind', path, `no mind named "${nameOrId}"`);
    return mind;
  }

  async plan(id: string, path = 'plan_id'): Promise<PlanWithSteps> {
    const plan = isId(id) ? await this.store.plans.get(id) : undefined;
    if (!plan || !mayActOnMind(this.principal, plan.mindId)) throw refusal('unknown_plan', path, `no plan ${id} that this token may see`);
    return plan;
  }

  async intention(id: string, path = 'intention_id'): Promise<IntentionRecord> {
    const intention = isId(id) ? await this.store.intentions.get(id) : undefined;
    if (!intention || !mayActOnMind(this.principal, intention.mindId)) {
      throw refusal('unknown_intention', path, `no intention ${id} that this token may see`);
    }
    return intention;
  }

}
