// The console shell: sign in with a token (or a `#token=` link), then a header with who you are,
// the stream's state and sign-out, and the page the hash route names.

import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiClient, asApiError, type ApiError } from './api/client.ts';
import type { Whoami } from './api/types.ts';
import { ErrorBox } from './components/common.tsx';
import { PageBoundary } from './components/PageBoundary.tsx';
import { LiveProvider, useLive } from './live.tsx';
import { ApprovalCentre } from './pages/ApprovalCentre.tsx';
import { PlanPage } from './pages/PlanPage.tsx';
import { PlansList } from './pages/PlansList.tsx';
import { TimelinePage } from './pages/TimelinePage.tsx';
import { href, useRoute, type Route } from './router.ts';
import { useWaitingWork } from './waiting.tsx';
import { adoptTokenFromFragment, forgetToken, storedToken, storeToken, tokenOfPasted } from './session.ts';

type Session = { state: 'signed_out'; error?: ApiError; notice?: string } | { state: 'checking'; token: string } | { state: 'signed_in'; api: ApiClient; me: Whoami };

export function App() {
  const [session, setSession] = useState<Session>(() => {
    const token = adoptTokenFromFragment() ?? storedToken();
    return token ? { state: 'checking', token } : { state: 'signed_out' };
  });

  const signOut = useCallback((notice?: string, error?: ApiError) => {
    forgetToken();
    setSession({ state: 'signed_out', ...(notice ? { notice } : {}), ...(error ? { error } : {}) });
  }, []);

  // A sign-in link pasted into a tab that is already open changes only the fragment: no page
  // load, so the token is taken from the hash change too (and removed from the address bar).
  useEffect(() => {
    const adopt = () => {
      const token = adoptTokenFromFragment();
      if (token) setSession({ state: 'checking', token });
    };
    window.addEventListener('hashchange', adopt);
    return () => window.removeEventListener('hashchange', adopt);
  }, []);

  useEffect(() => {
    if (session.state !== 'checking') return;
    let cancelled = false;
    const api = new ApiClient(session.token, (error) => signOut('The server no longer accepts this token. Sign in again.', error));
    api.get<Whoami>('/whoami').then(
      (me) => {
        if (cancelled) return;
        storeToken(session.token);
        setSession({ state: 'signed_in', api, me });
      },
      (error: unknown) => {
        if (cancelled) return;
        forgetToken();
        setSession({ state: 'signed_out', error: asApiError(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [session, signOut]);

  if (session.state === 'signed_out') {
    return <SignIn error={session.error} notice={session.notice} onToken={(token) => setSession({ state: 'checking', token })} />;
  }
  if (session.state === 'checking') {
    return (
      <main className="sign-in">
        <p role="status">Checking the token…</p>
      </main>
    );
  }
  return (
    <LiveProvider api={session.api} me={session.me} onRefused={() => signOut('The server no longer accepts this token. Sign in again.')}>
      <Shell onSignOut={() => signOut('Signed out.')} />
    </LiveProvider>
  );
}

function SignIn({ error, notice, onToken }: { error?: ApiError | undefined; notice?: string | undefined; onToken(token: string): void }) {
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = tokenOfPasted(token);
    if (value) onToken(value);
  };
  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title" data-testid="sign-in">
        <h1 id="sign-in-title">Praxis console</h1>
        <p className="muted">
          Sign in with an access token (<code>praxis token create</code>), or paste the sign-in link. The token stays in this tab only.
        </p>
        {notice && <p role="status">{notice}</p>}
        <ErrorBox error={error} title="Sign-in failed" />
        <label htmlFor="token-input">Access token or sign-in link</label>
        <input id="token-input" name="token" type="password" autoComplete="off" spellCheck={false} value={token} onChange={(event) => setToken(event.target.value)} required />
        <button type="submit" className="primary" disabled={!token.trim()}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell({ onSignOut }: { onSignOut(): void }) {
  const { me, streamState } = useLive();
  const work = useWaitingWork();
  const waiting = work ? work.approvals.length + work.requests.length : null;
  const route = useRoute();
  const section = route.page === 'plan' ? 'plans' : route.page;
  const streamLabel = useMemo(
    () =>
      ({
        connecting: 'connecting…',
        live: 'live',
        reconnecting: 'reconnecting…',
        refused: 'stream refused',
      })[streamState],
    [streamState],
  );
  return (
    <div className="shell">
      <header className="top">
        <a className="brand" href={href.plans()}>
          Praxis
        </a>
        <nav aria-label="Main">
          <a href={href.plans()} aria-current={section === 'plans' ? 'page' : undefined}>
            Plans
          </a>
          <a href={href.approvals()} aria-current={section === 'approvals' ? 'page' : undefined} data-testid="nav-approvals">
            Approvals
            {waiting !== null && waiting > 0 && (
              <span className="nav-count" data-testid="waiting-count">
                {' '}
                {waiting}
                <span className="sr-only"> waiting for you</span>
              </span>
            )}
          </a>
          <a href={href.timeline()} aria-current={section === 'timeline' ? 'page' : undefined}>
            Timeline
          </a>
        </nav>
        <span className={`stream stream-${streamState}`} data-testid="stream-state" data-state={streamState} title="Event stream">
          <span className="dot" aria-hidden="true" /> {streamLabel}
        </span>
        <span className="whoami" data-testid="whoami">
          <strong>{me.operator}</strong> <span className="role">{me.role}</span>
        </span>
        <button type="button" className="quiet" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main className="content">
        {/* A page that failed to render is left behind by going to another address. */}
        <PageBoundary location={window.location.hash}>
          <Page route={route} />
        </PageBoundary>
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'plans':
      return <PlansList query={route.query} />;
    case 'plan':
      return <PlanPage key={route.id} id={route.id} selectedStep={route.step} />;
    case 'approvals':
      return <ApprovalCentre />;
    case 'timeline':
      return <TimelinePage key={`${route.scope}:${route.id ?? ''}`} scope={route.scope} id={route.id} />;
    case 'not_found':
      return (
        <section>
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <a href={href.plans()}>Back to the plans.</a>
          </p>
        </section>
      );
  }
}
