// The browser capabilities' implementations, all sharing one SSRF-safe client. Options exist
// for tests (scripted DNS, a loopback allowance, small caps); a daemon passes none.

import type { CapabilityImplementations } from '../implementation.ts';
import { linksImplementation } from './links.ts';
import { navigateImplementation } from './navigate.ts';
import { readImplementation } from './read.ts';
import { type SafeFetchOptions, createSafeFetch } from './safe-fetch.ts';

export interface BrowserImplementationOptions {
  fetch?: SafeFetchOptions;
}

export function browserImplementations(options: BrowserImplementationOptions = {}): CapabilityImplementations {
  const safeFetch = createSafeFetch(options.fetch);
  return Object.freeze({
    'browser.navigate': navigateImplementation(safeFetch),
    'browser.read': readImplementation(safeFetch),
    'browser.links': linksImplementation(safeFetch),
  });
}

export type { SafeFetchOptions, SafeFetch, FetchedPage, FetchRequest } from './safe-fetch.ts';
export { createSafeFetch, USER_AGENT } from './safe-fetch.ts';
export type { Resolver, ResolvedAddress } from './connection-guard.ts';
export { addressRefusal, addressPolicy, isAddressAllowed } from './address-policy.ts';
export { checkUrl } from './url-policy.ts';
