// browser.navigate: fetch a page and report where it ended up, its status, title and type.
// A body of a type that is not read (an image, a PDF) is not an error here: the status and
// content type are still worth reporting, the title is then null.

import type { CapabilityImplementation } from '../implementation.ts';
import { pageTitle } from './page.ts';
import type { SafeFetch } from './safe-fetch.ts';
import { redirectNote, webOutcome } from './web-outcome.ts';

export function navigateImplementation(safeFetch: SafeFetch): CapabilityImplementation {
  return async (params, { signal }) => {
    const page = await safeFetch(String(params.url), { signal, body: 'if-readable' });
    const contentType = page.contentType?.mediaType ?? null;
    const title = page.body === null ? null : pageTitle(page.body, contentType);
    return webOutcome(
      { url: page.url, status: page.status, final_url: page.finalUrl, title, content_type: contentType },
      `Fetched ${page.url}${redirectNote(page)}: status ${page.status}, ${contentType ?? 'no content type'}.`,
    );
  };
}
