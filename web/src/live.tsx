// What every page shares: the API client, who is signed in, and one event stream that pages
// subscribe to. A page says which events concern it; when one arrives the page reloads its data
// (a short debounce folds a burst of events into one request). Nothing polls.

import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { type ApiClient, asApiError, type ApiError } from './api/client.ts';
import { openEventStream, type StreamState } from './api/stream.ts';
import type { EventRecord, Whoami } from './api/types.ts';

type Listener = (event: EventRecord | 'reconnected') => void;

export interface Live {
  api: ApiClient;
  me: Whoami;
  streamState: StreamState;
  subscribe(listener: Listener): () => void;
}

const LiveContext = createContext<Live | null>(null);

export function useLive(): Live {
  const live = useContext(LiveContext);
  if (!live) throw new Error('useLive outside LiveProvider');
  return live;
}

export function LiveProvider({ api, me, onRefused, children }: { api: ApiClient; me: Whoami; onRefused?: () => void; children: ReactNode }) {
  const refusedRef = useRef(onRefused);
  refusedRef.current = onRefused;
  const listeners = useRef(new Set<Listener>());
  const [streamState, setStreamState] = useState<StreamState>('connecting');

  useEffect(() => {
    const close = openEventStream({
      token: api.token,
      onEvent: (event) => listeners.current.forEach((listener) => listener(event)),
      onState: (state, detail) => {
        setStreamState(state);
        // The token stopped working (revoked, expired): back to the sign-in box.
        if (state === 'refused' && detail === '401') refusedRef.current?.();
      },
      onReconnected: () => listeners.current.forEach((listener) => listener('reconnected')),
    });
    return close;
  }, [api]);

  const subscribe = useCallback((listener: Listener) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);

  return <LiveContext.Provider value={{ api, me, streamState, subscribe }}>{children}</LiveContext.Provider>;
}

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Loads data with the signed-in client and reloads it whenever `concerns` says an event from the
 * stream is relevant. `key` identifies the request: a new key drops the old data; `reload()` (or
 * an event) under the same key keeps the data shown until the new answer replaces it.
 */
export function useLiveResource<T>(key: string, load: (api: ApiClient) => Promise<T>, concerns: (event: EventRecord, current: T | undefined) => boolean): Resource<T> {
  const { api, subscribe } = useLive();
  const [state, setState] = useState<{ key: string; data?: T; error?: ApiError; loading: boolean }>({ key, loading: true });
  const generation = useRef(0);
  const loadRef = useRef(load);
  const concernsRef = useRef(concerns);
  const dataRef = useRef<T | undefined>(undefined);
  loadRef.current = load;
  concernsRef.current = concerns;

  const reload = useCallback(() => {
    const mine = ++generation.current;
    // A reload of the same key keeps what is shown (a live refresh, "load more") until the answer
    // replaces it; a new key starts empty, so one filter's rows never stand under another's.
    setState((previous) => (previous.key === key ? { ...previous, loading: true } : { key, loading: true }));
    loadRef.current(api).then(
      (data) => {
        if (mine !== generation.current) return;
        dataRef.current = data;
        setState({ key, data, loading: false });
      },
      (error: unknown) => {
        if (mine !== generation.current) return;
        setState((previous) => (previous.key === key ? { ...previous, error: asApiError(error), loading: false } : { key, error: asApiError(error), loading: false }));
      },
    );
  }, [api, key]);

  useEffect(() => {
    dataRef.current = undefined;
    reload();
  }, [reload]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = subscribe((event) => {
      if (event !== 'reconnected' && !concernsRef.current(event, dataRef.current)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(reload, 120);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [subscribe, reload]);

  const current = state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: !current || state.loading,
    reload,
  };
}

/** Runs an operator action (approve, deny, grant, release, cancel) and keeps its error. */
export function useAction() {
  const { api } = useLive();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const run = useCallback(
    async (label: string, action: (api: ApiClient) => Promise<unknown>, after?: () => void) => {
      setBusy(true);
      setError(undefined);
      setDone(undefined);
      try {
        await action(api);
        setDone(label);
        after?.();
        return true;
      } catch (caught) {
        setError(asApiError(caught));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [api],
  );
  return { busy, error, done, run, clear: () => setError(undefined) };
}
