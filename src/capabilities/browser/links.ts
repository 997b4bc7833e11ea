// browser.links: the distinct http(s) links of a page, resolved to absolute URLs.

import { MAX_LINKS } from '../catalogue/params.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import { pageLinks } from './page.ts';
import type { SafeFetch } from './safe-fetch.ts';
import { MAX_URL_LENGTH } from './url-policy.ts';
import { redirectNote, requireSuccess, webOutcome } from './web-outcome.ts';

/** Links returned when the caller does not say; the schema caps what it may ask for. */
export const DEFAULT_LINK_LIMIT = 100;

export function linksImplementation(safeFetch: SafeFetch): CapabilityImplementation {
  return async (params, { signal }) => {
    const limit = Math.min(typeof params.limit === 'number' ? params.limit : DEFAULT_LINK_LIMIT, MAX_LINKS);
    const page = await safeFetch(String(params.url), { signal, body: 'required' });
    requireSuccess(page);
    const { links, found } = pageLinks(page.body ?? '', page.contentType?.mediaType ?? null, page.finalUrl, limit, MAX_URL_LENGTH);
    const more = found > links.length ? ` of ${found}` : '';
    return webOutcome(
      { url: page.url, links: links.map((link) => ({ href: link.href, text: link.text })), count: links.length },
      `Listed ${links.length}${more} links from ${page.url}${redirectNote(page)}.`,
    );
  };
}
