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

/** The value of a fragment parameter, as sent; malformed escapes are kept as they are. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Splits a URL fragment that carries `token=` into the token and the route without it: the path
 * and every other query parameter stay exactly as written. `#token=T` → route `/`;
 * `#/plans?status=x&token=T&mind=m` → `/plans?status=x&mind=m`. Null when there is no token.
 */
export function splitTokenFragment(hash: string): { token: string; route: string } | null {
  const fragment = hash.replace(/^#/, '');
  const mark = fragment.indexOf('?');
  // Without a route (`#token=T`) the whole fragment is parameters.
  const hasPath = fragment.startsWith('/');
  const path = hasPath ? (mark === -1 ? fragment : fragment.slice(0, mark)) : '/';
  const params = hasPath ? (mark === -1 ? '' : fragment.slice(mark + 1)) : fragment.replace(/^\?/, '');
  let token: string | undefined;
  const kept = params.split('&').filter((param) => {
    if (param === '') return false;
    const [key = ''] = param.split('=', 1);
    if (decoded(key) !== 'token') return true;
    token = decoded(param.slice(key.length + 1));
    return false;
  });
  if (token === undefined) return null;
  // Parameters that stood in place of a route have no page to go to.
  const route = hasPath && kept.length > 0 ? `${path}?${kept.join('&')}` : path;
  return { token: token.trim(), route };
}

/** Takes a `token=` parameter out of the URL fragment, stores it, and rewrites the address bar. */
export function adoptTokenFromFragment(): string | null {
  const split = splitTokenFragment(window.location.hash);
  if (!split) return null;
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#${split.route}`);
  if (!split.token) return null;
  storeToken(split.token);
  return split.token;
}

/**
 * The token in what was pasted into the sign-in box: the token itself, or a whole sign-in link
 * (`http://…/#token=…`, `#/plans?token=…`), whose token is taken out of it.
 */
export function tokenOfPasted(text: string): string {
  const value = text.trim();
  const hash = value.indexOf('#');
  if (hash >= 0) return splitTokenFragment(value.slice(hash))?.token ?? '';
  if (/^token=/.test(value)) return splitTokenFragment(`#${value}`)?.token ?? '';
  return value;
}
