import type { CapabilityModule } from '../module.ts';
import { objectSchema, urlParam, urlTarget } from './params.ts';

export const browserNavigate: CapabilityModule = {
  definition: {
    name: 'browser.navigate',
    description: 'Fetches a page over http(s) without running scripts and reports its status, final URL, title and content type.',
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 30,
    paramsSchema: objectSchema({ url: urlParam }, ['url']),
    target: urlTarget,
    locked: false,
    cost: { wall_seconds: 3, network_ops: 1, money: 0 },
    observes: ['url', 'status', 'final_url', 'title', 'content_type'],
  },
  async implement(environment) {
    const { navigateImplementation } = await import('../browser/navigate.ts');
    return navigateImplementation(await environment.safeFetch());
  },
  example: async (host) => ({ url: await host.servePage('<title>Example</title><p>hello</p>') }),
};
