// Small pieces every page uses: an API error box, status badges, JSON and time display.

import { useEffect, useState, type ReactNode } from 'react';
import type { ApiError } from '../api/client.ts';
import type { Json } from '../api/types.ts';

export function ErrorBox({ error, title, onDismiss }: { error: ApiError | undefined; title?: string; onDismiss?: () => void }) {
  if (!error) return null;
  return (
    <div className="error-box" role="alert" data-testid="api-error" data-code={error.code} data-status={error.status}>
      <div className="error-head">
        <strong>{title ?? 'The server refused'}</strong>
        {error.status > 0 && <span className="error-status">HTTP {error.status}</span>}
        <code className="error-code">{error.code}</code>
        {onDismiss && (
          <button type="button" className="link-button" onClick={onDismiss} aria-label="Dismiss error">
            dismiss
          </button>
        )}
      </div>
      <p className="error-message">{error.message}</p>
      {error.problems.length > 0 && (
        <ul className="error-problems">
          {error.problems.map((problem, index) => (
            <li key={index}>
              <code>{problem.code}</code> {problem.message}
              {problem.path && (
                <>
                  {' '}
                  at <code>{problem.path}</code>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge status-${status}`} data-testid="status" data-status={status}>
      {status.replace(/_/g, ' ')}
    </span>
  );
}

export function JsonView({ value, label }: { value: Json | undefined; label?: string }) {
  if (value === undefined || value === null) return <span className="muted">none</span>;
  if (typeof value !== 'object') return <code>{String(value)}</code>;
  if (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0) return <code>{Array.isArray(value) ? '[]' : '{}'}</code>;
  return (
    <pre className="json" aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** A definition list that skips empty values. */
export function Facts({ items }: { items: [string, ReactNode | undefined | null | false][] }) {
  const shown = items.filter(([, value]) => value !== undefined && value !== null && value !== false && value !== '');
  if (shown.length === 0) return null;
  return (
    <dl className="facts">
      {shown.map(([term, value]) => (
        <div key={term} className="fact">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Re-renders every 30 s so relative ages stay true without refetching anything. */
function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function Age({ at }: { at: string | null | undefined }) {
  const now = useNow();
  if (!at) return <span className="muted">–</span>;
  const then = Date.parse(at);
  if (Number.isNaN(then)) return <span>{at}</span>;
  return (
    <time dateTime={at} title={new Date(then).toLocaleString()}>
      {relative(now - then)}
    </time>
  );
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">–</span>;
  const then = Date.parse(at);
  if (Number.isNaN(then)) return <span>{at}</span>;
  return <time dateTime={at}>{new Date(then).toLocaleString()}</time>;
}

export function relative(ms: number): string {
  const future = ms < 0;
  const s = Math.abs(ms) / 1000;
  const text =
    s < 45 ? `${Math.round(s)} s` : s < 90 * 60 ? `${Math.round(s / 60)} min` : s < 36 * 3600 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}

export function shortId(id: string | null | undefined): string {
  if (!id) return '–';
  // Ids are UUID v7: the leading digits are a timestamp shared by records made together, so
  // the tail is what tells them apart.
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}
