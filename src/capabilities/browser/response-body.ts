// Reading a response body under a byte cap. undici decompresses gzip, deflate and brotli as
// the body streams, so the bytes counted here are the decoded ones: a small compressed body
// that inflates past the cap is stopped as soon as the cap is crossed, and so is a chunked
// body that never declares its length.

import type { Response } from 'undici';
import { CapabilityError } from '../implementation.ts';

/** The media types whose bodies are read; everything else is reported but never read. */
export const READABLE_MEDIA_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'application/json']);

export interface ContentType {
  /** Lower-case `type/subtype`, without parameters. */
  mediaType: string;
  charset: string | null;
}

export function parseContentType(header: string | null): ContentType | null {
  if (header === null) return null;
  const [essence = '', ...params] = header.split(';');
  const mediaType = essence.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType)) return null;
  let charset: string | null = null;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (match) charset = match[1]!.toLowerCase();
  }
  return { mediaType, charset };
}

export function isReadable(type: ContentType | null): boolean {
  return type !== null && READABLE_MEDIA_TYPES.has(type.mediaType);
}

/**
 * Refuses early when the declared length (of the body as sent, possibly compressed) is
 * already over the cap, then reads the decoded stream and stops the moment the cap is passed.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > maxBytes) {
    await discardBody(response);
    throw new CapabilityError('body_too_large', `the server declares ${declared.trim()} bytes; at most ${maxBytes} are read`);
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new CapabilityError('body_too_large', `the body is larger than ${maxBytes} bytes once decoded; reading stopped`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Releases a body that will not be read, so its connection can close. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/**
 * Decodes the body to text: the charset from the header, else one declared in the first
 * kilobyte of an HTML document, else UTF-8. Unknown labels fall back to UTF-8; malformed
 * bytes become U+FFFD rather than errors.
 */
export function decodeBody(body: Uint8Array, type: ContentType | null): string {
  const label = type?.charset ?? (type !== null && type.mediaType !== 'application/json' ? sniffMetaCharset(body) : null) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}

function sniffMetaCharset(body: Uint8Array): string | null {
  const head = new TextDecoder('latin1').decode(body.subarray(0, 1024));
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_.:-]+)/i.exec(head);
  return match ? match[1]!.toLowerCase() : null;
}
