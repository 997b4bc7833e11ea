import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { CapabilityRegistry } from '../../capabilities/registry.ts';
import type { CapabilityService } from '../../capabilities/service.ts';
import type { PlanningServices } from '../../execution/plan-intention.ts';
import type { Store } from '../../store/index.ts';

/** What the API routes work with. */
export interface ApiContext {
  store: Store;
  registry: CapabilityRegistry;
  capabilities: CapabilityService;
  planning: PlanningServices;
}

export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
