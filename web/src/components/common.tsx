// Small pieces every page uses: an API error box, status badges, readable records with their raw
// JSON one click away, short ids with a copy button, and times that never run into the future.

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

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`badge status-${status}`} data-testid="status" data-status={status}>
      {label ?? status.replace(/_/g, ' ')}
    </span>
  );
}

export function JsonView({ value, label }: { value: Json | undefined; label?: string }) {
  if (value === undefined || value === null) return <span className="muted">none</span>;
  if (typeof value !== 'object') return <code>{String(value)}</code>;
  if (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0) return <code>{Array.isArray(value) ? '[]' : '{}'}</code>;
  return (
    <pre className="json" role="group" aria-label={label}>
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

/** Re-renders every 15 s so relative ages stay true without refetching anything. */
function useNow(intervalMs = 15_000): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  // Read at every render, not only at the tick: a page that reloads live renders records newer
  // than the last tick, which would otherwise read as "in 12 s".
  return Date.now();
}

/** How long ago something happened. Never in the future: a record a little ahead of this browser's clock is "just now". */
export function Age({ at }: { at: string | null | undefined }) {
  const now = useNow();
  if (!at) return <span className="muted">–</span>;
  const then = Date.parse(at);
  if (Number.isNaN(then)) return <span>{at}</span>;
  return (
    <time dateTime={at} title={new Date(then).toLocaleString()} data-testid="age">
      {ago(now - then)}
    </time>
  );
}

/** When something ends (an approval's expiry): "in 5 min", or "ended 2 min ago" once past. */
export function Until({ at, past = 'ended' }: { at: string | null | undefined; past?: string }) {
  const now = useNow();
  if (!at) return <span className="muted">–</span>;
  const then = Date.parse(at);
  if (Number.isNaN(then)) return <span>{at}</span>;
  return (
    <time dateTime={at} title={new Date(then).toLocaleString()}>
      {then > now ? `in ${span(then - now)}` : `${past} ${ago(now - then)}`}
    </time>
  );
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">–</span>;
  const then = Date.parse(at);
  if (Number.isNaN(then)) return <span>{at}</span>;
  return <time dateTime={at}>{new Date(then).toLocaleString()}</time>;
}

function span(ms: number): string {
  const s = ms / 1000;
  return s < 45 ? `${Math.max(1, Math.round(s))} s` : s < 90 * 60 ? `${Math.round(s / 60)} min` : s < 36 * 3600 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} d`;
}

/** `12 s ago`; anything under five seconds, or ahead of this clock, is `just now`. */
export function ago(ms: number): string {
  return ms < 5_000 ? 'just now' : `${span(ms)} ago`;
}

export function shortId(id: string | null | undefined): string {
  if (!id) return '–';
  // Ids are UUID v7: the leading digits are a timestamp shared by records made together, so
  // the tail is what tells them apart.
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

/** A short id with the full one in its title and a button that copies it. */
export function ShortId({ id, label }: { id: string | null | undefined; label?: string }) {
  const [copied, setCopied] = useState(false);
  if (!id) return <span className="muted">–</span>;
  // The clipboard API exists only where the page is a secure context (loopback or HTTPS); elsewhere the title still shows the whole id.
  if (!navigator.clipboard) return <code title={id}>{shortId(id)}</code>;
  const copy = () => {
    void navigator.clipboard.writeText(id).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      },
      () => setCopied(false),
    );
  };
  return (
    <span className="short-id">
      <code title={id}>{shortId(id)}</code>
      <button type="button" className="copy" onClick={copy} aria-label={`Copy ${label ?? 'id'} ${id}`} data-testid="copy-id" data-id={id}>
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}

/** Raw JSON, one click away from the readable form above it. */
export function RawJson({ value, label = 'Raw JSON' }: { value: Json | undefined; label?: string }) {
  if (value === undefined || value === null) return null;
  return (
    <details className="raw">
      <summary>{label}</summary>
      <pre className="json">{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Words for a key: `active_state` → `active state`, `mainPid` → `main pid`. */
export function words(key: string): string {
  return key
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/**
 * A record's value as a person reads it: text as text, times as times, ids short, a list of
 * records as a table, a list of words as a list, an object as facts. Raw JSON stays one click
 * away wherever this is used for a whole record (see Readable).
 */
export function Value({ value, depth = 0 }: { value: Json | undefined; depth?: number }): ReactNode {
  if (value === undefined || value === null || value === '') return <span className="muted">none</span>;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    if (UUID.test(value)) return <ShortId id={value} />;
    if (ISO_TIME.test(value)) return <Time at={value} />;
    const origin = /^plan_step:([0-9a-f-]{36})$/i.exec(value);
    if (origin)
      return (
        <>
          a plan step (<ShortId id={origin[1]!} label="step id" />)
        </>
      );
    return value.includes('\n') ? <span className="prose">{value}</span> : value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    if (value.every((item) => item === null || typeof item !== 'object')) {
      return (
        <ul className="plain">
          {value.map((item, i) => (
            <li key={i}>
              <Value value={item} depth={depth + 1} />
            </li>
          ))}
        </ul>
      );
    }
    const rows = value.filter((item): item is { [key: string]: Json } => item !== null && typeof item === 'object' && !Array.isArray(item));
    if (rows.length === value.length && depth < 2) {
      const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].slice(0, 8);
      return (
        <table className="table compact records">
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {words(column)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                {columns.map((column) => (
                  <td key={column}>
                    <Value value={row[column]} depth={depth + 2} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    return <code>{JSON.stringify(value)}</code>;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return <span className="muted">none</span>;
  if (depth >= 3) return <code>{JSON.stringify(value)}</code>;
  return (
    <dl className="facts nested">
      {entries.map(([key, item]) => (
        <div key={key} className="fact">
          <dt>{words(key)}</dt>
          <dd>
            <Value value={item} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A whole record readable, with its raw JSON one click away. */
export function Readable({ value, label }: { value: Json | undefined; label: string }) {
  if (value === undefined || value === null) return <p className="muted">none</p>;
  return (
    <div className="readable" role="group" aria-label={label}>
      <Value value={value} />
      {typeof value === 'object' && <RawJson value={value} label={`Raw JSON of the ${label.toLowerCase()}`} />}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}
