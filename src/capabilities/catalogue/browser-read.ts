import type { CapabilityModule } from '../module.ts';
import { objectSchema, urlParam, urlTarget } from './params.ts';

const MAX_READ_CHARS = 100_000;

/** The page's text is a low-trust observation: it informs, it never instructs. */
export const browserRead: CapabilityModule = {
  definition: {
    name: 'browser.read',
    description: 'Fetches a page over http(s) and returns its title and readable text, cut to a maximum length.',
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 30,
    paramsSchema: objectSchema(
      {
        url: urlParam,
        max_chars: { type: 'integer', minimum: 1, maximum: MAX_READ_CHARS },
      },
      ['url'],
    ),
    target: urlTarget,
    locked: false,
    cost: { wall_seconds: 5, network_ops: 1, money: 0 },
    observes: ['url', 'title', 'text', 'truncated'],
  },
  async implement(environment) {
    const { readImplementation } = await import('../browser/read.ts');
    return readImplementation(await environment.safeFetch());
  },
  example: async (host) => ({ url: await host.servePage('<title>Example</title><p>hello</p>'), max_chars: 100 }),
};
