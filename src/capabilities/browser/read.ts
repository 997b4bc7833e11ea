// browser.read: the page's title and readable text, cut to max_chars characters.

import type { CapabilityImplementation } from '../implementation.ts';
import { pageText, pageTitle } from './page.ts';
import type { SafeFetch } from './safe-fetch.ts';
import { redirectNote, requireSuccess, webOutcome } from './web-outcome.ts';

/** Characters returned when the caller does not say; the schema caps what it may ask for. */
export const DEFAULT_READ_CHARS = 20_000;

export function readImplementation(safeFetch: SafeFetch): CapabilityImplementation {
  return async (params, { signal }) => {
    const maxChars = typeof params.max_chars === 'number' ? params.max_chars : DEFAULT_READ_CHARS;
    const page = await safeFetch(String(params.url), { signal, body: 'required' });
    requireSuccess(page);
    const contentType = page.contentType?.mediaType ?? null;
    const body = page.body ?? '';
    const { text, truncated, characters } = cutToCharacters(pageText(body, contentType), maxChars);
    return webOutcome(
      { url: page.url, title: pageTitle(body, contentType), text, truncated },
      `Read ${characters} characters${truncated ? ' (cut short)' : ''} from ${page.url}${redirectNote(page)}.`,
    );
  };
}

/** At most `max` characters (code points), never splitting a surrogate pair. */
export function cutToCharacters(text: string, max: number): { text: string; truncated: boolean; characters: number } {
  let characters = 0;
  let end = 0;
  while (end < text.length && characters < max) {
    end += text.codePointAt(end)! > 0xffff ? 2 : 1;
    characters += 1;
  }
  return { text: text.slice(0, end), truncated: end < text.length, characters };
}
