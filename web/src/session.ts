// The operator's token lives in sessionStorage only: it is gone when the tab closes. A link of
// the form `…/#token=<token>` (the demo prints one) signs in and the token is removed from the
// address bar at once, so it does not stay in history or get copied along with the URL.

const KEY = 'praxis.token';

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

/** Takes a `token=` parameter out of the URL fragment, stores it, and rewrites the address bar. */
export function adoptTokenFromFragment(): string | null {
  const hash = window.location.hash;
  const match = /(?:^#|[#&?])token=([^&]*)/.exec(hash);
  if (!match) return null;
  const token = decodeURIComponent(match[1] ?? '').trim();
  const rest = hash.replace(/[#&?]?token=[^&]*&?/, '').replace(/^#?/, '');
  const route = rest.startsWith('/') ? rest : '/';
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#${route}`);
  if (!token) return null;
  storeToken(token);
  return token;
}
