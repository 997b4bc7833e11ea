import type { CapabilityModule } from '../module.ts';
import { MAX_LINKS, objectSchema, urlParam, urlTarget } from './params.ts';

export const browserLinks: CapabilityModule = {
  definition: {
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
  },
  async implement(environment) {
    const { linksImplementation } = await import('../browser/links.ts');
    return linksImplementation(await environment.safeFetch());
  },
  example: async (host) => ({ url: await host.servePage('<title>Example</title><a href="/next">next</a>') }),
};
