// Praxis installed in the booted root the way docs/deployment.md tells an operator to, from the
// files in packaging/ as they are: the sysusers entry, the polkit rule and the unit. Node.js and
// the built project are this machine's, bind-mounted read-only by scripts/host-root.sh
// (/usr/local/bin/node and /praxis); the unit finds them where a package would put them
// (/usr/bin/node, /opt/praxis). Also: the daemon's HTTP API as an operator's script calls it.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { systemctl, waitFor } from './container.ts';

export const API = 'http://127.0.0.1:7300';
export const DATABASE = '/var/lib/praxis/praxis.db';

export const sh = (program: string, ...args: string[]) => execFileSync(program, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', TZ: 'UTC', LANG: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });

/** Installs the user, the polkit rule and the unit (idempotent), as docs/deployment.md does. */
export function installPraxis(): void {
  mkdirSync('/etc/sysusers.d', { recursive: true });
  copyFileSync('/praxis/packaging/praxis.sysusers', '/etc/sysusers.d/praxis.conf');
  sh('/usr/bin/systemd-sysusers');
  copyFileSync('/praxis/packaging/praxis-polkit.rules', '/etc/polkit-1/rules.d/50-praxis.rules');
  copyFileSync('/praxis/packaging/praxis.service', '/etc/systemd/system/praxis.service');
  if (!existsSync('/usr/bin/node')) symlinkSync('/usr/local/bin/node', '/usr/bin/node');
  mkdirSync('/opt', { recursive: true });
  if (!existsSync('/opt/praxis')) symlinkSync('/praxis', '/opt/praxis');
  systemctl('daemon-reload');
}

/** Starts praxis.service and waits for the daemon's /readyz. */
export async function startPraxis(): Promise<void> {
  systemctl('start', 'praxis.service');
  await waitFor(
    'praxis.service to answer /readyz',
    async () => {
      try {
        const response = await fetch(`${API}/readyz`);
        return response.ok ? true : undefined;
      } catch {
        return undefined;
      }
    },
    30_000,
  );
}

/** `praxis token create`, run as the praxis user on the service's database, as an operator would. */
export function issueToken(operator: string, role: string): string {
  const out = sh('/usr/sbin/runuser', '-u', 'praxis', '--', '/usr/bin/node', '/opt/praxis/bin/praxis.js', 'token', 'create', '--db', DATABASE, '--operator', operator, '--role', role, '--json');
  const { token } = JSON.parse(out) as { token: string };
  assert.match(token, /^praxis_/);
  return token;
}

export interface Answer {
  status: number;
  body: any;
  /** The body as the daemon sent it, for looking for text that must not be there. */
  text: string;
}

/** One API call with a bearer token; JSON in and out. */
export async function api(token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${API}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), text };
}

/** An API call that must succeed (2xx); its body. */
export async function ok(token: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<any> {
  const answer = await api(token, method, path, body);
  assert.ok(answer.status >= 200 && answer.status < 300, `${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 600)}`);
  return answer.body;
}
