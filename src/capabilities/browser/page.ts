// Turning a fetched document into what the capabilities report: a title, readable text and
// the links it contains. Nothing here executes or loads anything: html-to-text only walks the
// markup, and linkedom builds a DOM without a script engine and without fetching images,
// styles or frames. Scripts, styles, templates and embedded objects are dropped from the text.

import { convert, type HtmlToTextOptions } from 'html-to-text';
import { DOMParser } from 'linkedom';

export const MAX_TITLE_CHARS = 300;
export const MAX_LINK_TEXT_CHARS = 200;

const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

export function isHtml(mediaType: string | null | undefined): boolean {
  return mediaType != null && HTML_TYPES.has(mediaType);
}

// Elements whose content is code, media or invisible: none of it is text a reader would see.
const SKIPPED = ['head', 'title', 'meta', 'script', 'style', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'img', 'picture', 'video', 'audio', 'select', '[hidden]'];

const TEXT_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  // Deeply nested markup is cut rather than recursed into without bound.
  limits: { maxDepth: 256, ellipsis: '…' },
  selectors: [
    ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'a', options: { ignoreHref: true } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

/** The readable text of a page; plain text and JSON are returned as they are. */
export function pageText(body: string, mediaType: string | null): string {
  if (!isHtml(mediaType)) return body.replace(/\r\n?/g, '\n');
  return convert(body, TEXT_OPTIONS).trim();
}

/** The document's `<title>`, whitespace collapsed, or null when there is none. */
export function pageTitle(body: string, mediaType: string | null): string | null {
  if (!isHtml(mediaType)) return null;
  const doc = parseHtml(body);
  const title = doc.querySelector('head > title') ?? doc.querySelector('title');
  const text = collapse(title?.textContent ?? '');
  return text === '' ? null : clip(text, MAX_TITLE_CHARS);
}

export interface PageLink {
  href: string;
  text: string;
}

export interface PageLinks {
  links: PageLink[];
  /** Distinct http(s) links in the page, including any beyond the limit. */
  found: number;
}

/**
 * The page's http(s) links, resolved against its `<base href>` or final URL, without
 * fragments, each listed once (first occurrence, first non-empty text), at most `limit`.
 */
export function pageLinks(body: string, mediaType: string | null, pageUrl: string, limit: number, maxHrefLength: number): PageLinks {
  if (!isHtml(mediaType)) return { links: [], found: 0 };
  const doc = parseHtml(body);
  const base = baseUrl(doc, pageUrl);
  const byHref = new Map<string, PageLink>();
  for (const anchor of doc.querySelectorAll('a[href], area[href]')) {
    const href = resolveHref(anchor.getAttribute('href') ?? '', base, maxHrefLength);
    if (href === null) continue;
    const text = clip(collapse(anchor.textContent ?? anchor.getAttribute('alt') ?? ''), MAX_LINK_TEXT_CHARS);
    const seen = byHref.get(href);
    if (seen === undefined) byHref.set(href, { href, text });
    else if (seen.text === '' && text !== '') seen.text = text;
  }
  const links = [...byHref.values()];
  return { links: links.slice(0, limit), found: links.length };
}

function parseHtml(body: string): Document {
  return new DOMParser().parseFromString(body, 'text/html') as unknown as Document;
}

function baseUrl(doc: Document, pageUrl: string): URL {
  const page = new URL(pageUrl);
  const declared = doc.querySelector('base[href]')?.getAttribute('href');
  if (declared == null) return page;
  try {
    const base = new URL(declared.trim(), page);
    return base.protocol === 'http:' || base.protocol === 'https:' ? base : page;
  } catch {
    return page;
  }
}

function resolveHref(raw: string, base: URL, maxLength: number): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url.href.length > maxLength ? null : url.href;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Cuts to `max` characters without splitting a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}
