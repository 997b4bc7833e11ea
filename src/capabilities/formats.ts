// String formats the built-in parameter schemas use beyond JSON Schema's own. Each format
// explains a refusal in words, so a schema error can say why a value was refused instead of
// only that it "must match format".

import { checkRestartableUnit, checkUnitName, JOURNAL_UNIT_TYPES } from './unit-name.ts';

export interface ParamFormat {
  readonly name: string;
  /** Null when the value is acceptable, otherwise the reason it is not. */
  reason(value: string): string | null;
}

export const MAX_URL_LENGTH = 2048;
export const MAX_HOST_PATH_LENGTH = 4096;

/**
 * An http(s) URL a browser capability may fetch. Only the syntax is checked here; where the
 * host resolves to (private ranges, loopback) is the fetching client's concern, at every hop.
 */
export function checkHttpUrl(value: string): string | null {
  if (value.length > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} characters`;
  // Whitespace, control characters and backslashes are silently rewritten by URL parsers;
  // refusing them keeps what is checked identical to what is fetched.
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(value)) return 'the URL contains whitespace, a control character or a backslash';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return 'only http and https URLs are allowed';
  if (!/^https?:\/\/[^/?#]/i.test(value)) return 'the URL has no host';
  const authority = /^https?:\/\/([^/?#]*)/i.exec(value)?.[1] ?? '';
  if (authority.includes('@')) return 'the URL must not carry user information';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'the URL cannot be parsed';
  }
  if (url.username !== '' || url.password !== '') return 'the URL must not carry user information';
  if (url.hostname === '') return 'the URL has no host';
  if (url.hostname.endsWith('.')) return FQDN_DOT;
  return null;
}

/**
 * `pastebin.com.` reaches the same site as `pastebin.com`, but as a policy target it matches
 * neither a rule nor a commitment written for `pastebin.com`: refused, at every hop, rather than
 * rewritten, so that what is checked is what is fetched.
 */
export const FQDN_DOT = 'the URL\'s host ends in "." (write it without the trailing dot)';

/** The policy target of a URL: its host name, lower-cased (and in ASCII form). */
export function hostOfUrl(value: string): string {
  return new URL(value).hostname.toLowerCase();
}

/** An absolute file-system path without `..` segments or control characters. */
export function checkHostPath(value: string): string | null {
  if (value.length === 0) return 'the path is empty';
  if (value.length > MAX_HOST_PATH_LENGTH) return `the path is longer than ${MAX_HOST_PATH_LENGTH} characters`;
  if (!value.startsWith('/')) return 'the path must be absolute (start with "/")';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'the path contains a control character';
  if (value.split('/').includes('..')) return 'the path must not contain a ".." segment';
  return null;
}

export const PARAM_FORMATS: readonly ParamFormat[] = [
  { name: 'systemd-unit', reason: (value) => checkUnitName(value) },
  { name: 'systemd-restartable-unit', reason: (value) => checkRestartableUnit(value) },
  { name: 'systemd-journal-unit', reason: (value) => checkUnitName(value, JOURNAL_UNIT_TYPES) },
  { name: 'http-url', reason: checkHttpUrl },
  { name: 'host-path', reason: checkHostPath },
];
