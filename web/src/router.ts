// Hash routing: `#/plans`, `#/plans/<id>`, `#/approvals`, `#/timeline`, `#/minds/<id>/timeline`,
// `#/intentions/<id>/timeline`. The daemon also falls back to index.html for unknown paths, but
// the hash keeps every route working from any static host.

import { useEffect, useState } from 'react';

export type Route =
  | { page: 'plans'; query: URLSearchParams }
  | { page: 'plan'; id: string; step: string | null }
  | { page: 'approvals' }
  | { page: 'timeline'; scope: 'mind' | 'intention' | 'none'; id: string | null }
  | { page: 'not_found'; path: string };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [pathPart = '/', queryPart = ''] = raw.split('?');
  const query = new URLSearchParams(queryPart);
  // A malformed escape (`%E0%A4%A`) names no page: decodeURIComponent threw here, during render,
  // and blanked the console until a reload.
  const parts = decodedParts(pathPart);
  if (parts === null) return { page: 'not_found', path: pathPart };
  if (parts.length === 0 || (parts[0] === 'plans' && parts.length === 1)) return { page: 'plans', query };
  if (parts[0] === 'plans' && parts[1] && parts.length === 2) return { page: 'plan', id: parts[1], step: query.get('step') };
  if (parts[0] === 'approvals' && parts.length === 1) return { page: 'approvals' };
  if (parts[0] === 'timeline' && parts.length === 1) return { page: 'timeline', scope: 'none', id: null };
  if (parts[0] === 'minds' && parts[1] && parts[2] === 'timeline') return { page: 'timeline', scope: 'mind', id: parts[1] };
  if (parts[0] === 'intentions' && parts[1] && parts[2] === 'timeline') return { page: 'timeline', scope: 'intention', id: parts[1] };
  return { page: 'not_found', path: pathPart };
}

function decodedParts(path: string): string[] | null {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}

export const href = {
  plans: (query?: Record<string, string>) => {
    const text = query ? new URLSearchParams(query).toString() : '';
    return `#/plans${text ? `?${text}` : ''}`;
  },
  plan: (id: string, step?: string) => `#/plans/${encodeURIComponent(id)}${step ? `?step=${encodeURIComponent(step)}` : ''}`,
  approvals: () => '#/approvals',
  timeline: () => '#/timeline',
  mindTimeline: (id: string) => `#/minds/${encodeURIComponent(id)}/timeline`,
  intentionTimeline: (id: string) => `#/intentions/${encodeURIComponent(id)}/timeline`,
};

export function navigate(to: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useRoute(): Route {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const update = () => setHash(window.location.hash);
    window.addEventListener('hashchange', update);
    window.addEventListener('popstate', update);
    return () => {
      window.removeEventListener('hashchange', update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return parseRoute(hash);
}
