import type { CapabilityDefinition } from '../definition.ts';
import { objectSchema, urlParam, urlTarget } from './params.ts';

export const MAX_LINKS = 500;

export const browserLinks: CapabilityDefinition = {
  name: 'browser.links',
  description: 'Fetches a page over http(s) and lists the links it contains.',
  readOnly: true,
  idempotent: true,
  timeoutSeconds: 30,
  paramsSchema: objectSchema(
    {
      url: urlParam,
      limit: { type: 'integer', minimum: 1, maximum: MAX_LINKS },
    },
    ['url'],
  ),
  target: urlTarget,
  locked: false,
  cost: { wall_seconds: 3, network_ops: 1, money: 0 },
  observes: ['url', 'links', 'count'],
};
