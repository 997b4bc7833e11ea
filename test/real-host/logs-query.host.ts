// logs.query through Praxis's real runner against systemd-journald 252: every parameter, the
// short-iso format, multi-line messages, masking, and the output cap.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { logsQueryImplementation } from '../../src/capabilities/host/logs-query.ts';
import { execFileRunner } from '../../src/capabilities/host/runner.ts';
import { capability, context, failsWith, settle, waitFor } from './support/container.ts';

const UNIT = 'praxis-healthy.service';
/** The head of a short-iso line as journalctl 252 prints it: no colon in the offset. */
const HEAD = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000) praxis-host (\S+)\[(\d+)\]: /;
const SECRETS = ['hunter2', 's3cr3t-pass', 'AKIAIOSFODNN7EXAMPLE', 'eyJhbGciOiJIUzI1NiJ9', 'tkn-0123456789abcdef', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'alice@example.com'];

async function logs(params: Record<string, string | number>): Promise<string[]> {
  const { observation, lowTrust } = await capability('logs.query')({ unit: UNIT, ...params }, context());
  assert.equal(lowTrust, true);
  assert.equal(observation.masked, true);
  assert.equal(observation.truncated, false);
  return observation.lines as string[];
}

const messages = (lines: string[]) => lines.filter((l) => HEAD.test(l)).map((l) => l.replace(HEAD, ''));

/** An entry's exact time (microseconds since the epoch) from the journal itself, for the edges. */
function realtimeOf(message: string): bigint {
  const out = execFileSync('/usr/bin/journalctl', ['--no-pager', '--output=json', `--unit=${UNIT}`, `--grep=^${message}$`], { encoding: 'utf8' });
  const entries = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { __REALTIME_TIMESTAMP: string });
  assert.equal(entries.length, 1, `one entry "${message}"`);
  return BigInt(entries[0]!.__REALTIME_TIMESTAMP);
}

function isoOfMicros(us: bigint): string {
  const ms = Number(us / 1000n);
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(us % 1_000_000n).padStart(6, '0')}Z`;
}

describe('logs.query on real journald', () => {
  before(async () => {
    await settle(UNIT, ['active']);
    // The unit logs its last line about four seconds after starting.
    await waitFor('the healthy unit to log "ready"', async () => ((await logs({ grep: 'ready' })).length > 0 ? true : undefined));
  });

  it('reads every entry in short-iso, masked: no secret survives, the markers stand in their place', async () => {
    const lines = await logs({});
    const text = lines.join('\n');
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `"${secret}" is masked`);
    // The two native-protocol entries and the stdout stream interleave as journald received
    // them, so only the stream's own order is asserted.
    const stream = messages(lines).filter((m) => !m.startsWith('healthy: config dump') && !m.startsWith('healthy: key material'));
    assert.deepEqual(stream, [
      'healthy: listening on [ipv4]:8080',
      'healthy: connected to postgres://[secret]@db.internal:5432/app',
      'healthy: retrying login for [email] with password=[secret] api_key=[secret]',
      'healthy: upstream refused Authorization: Bearer [secret]',
      'healthy: debug: cache warmed in 12ms',
      'healthy: mark 1',
      'healthy: mark 2',
      'healthy: mark 3',
      'healthy: ready',
    ]);
    for (const line of lines.filter((l) => HEAD.test(l))) {
      const [, , identifier, pid] = HEAD.exec(line)!;
      assert.ok(identifier === 'healthy' || identifier === 'praxis-healthy', identifier);
      assert.ok(Number(pid) > 1);
    }
  });

  it('a multi-line message: continuation lines indented to the width of the head, masked as a whole', async () => {
    const lines = await logs({ grep: 'config dump' });
    assert.equal(lines.length, 4, lines.join('\n'));
    const head = HEAD.exec(lines[0]!)![0];
    assert.equal(lines[0]!.slice(head.length), 'healthy: config dump');
    assert.deepEqual(lines.slice(1), [`${' '.repeat(head.length)}  listen = [ipv4]:8080`, `${' '.repeat(head.length)}  token: [secret]`, `${' '.repeat(head.length)}  end of dump`]);
  });

  it('a private key inside a multi-line message is masked whole, its continuation lines with it', async () => {
    const lines = await logs({ grep: 'key material follows' });
    const head = HEAD.exec(lines[0]!)![0];
    assert.deepEqual(lines, [`${head}healthy: key material follows`, `${' '.repeat(head.length)}[private-key]`, `${' '.repeat(head.length)}healthy: key material done`]);
  });

  it('grep with matches: only the matching entries; lower case matches either case, upper case only itself', async () => {
    assert.deepEqual(messages(await logs({ grep: 'mark [0-9]' })), ['healthy: mark 1', 'healthy: mark 2', 'healthy: mark 3']);
    assert.deepEqual(messages(await logs({ grep: 'MARK' })), []);
    assert.equal(messages(await logs({ grep: 'ready' })).length, 1);
  });

  it('grep without matches is an empty answer, not a failure (journalctl exits 1 for it)', async () => {
    assert.deepEqual(await logs({ grep: 'no entry says this' }), []);
  });

  it('a pattern journalctl cannot compile is command_failed with its words', async () => {
    await assert.rejects(capability('logs.query')({ unit: UNIT, grep: '(' }, context()), (error: unknown) => {
      failsWith('command_failed', true)(error);
      assert.match((error as Error).message, /Bad pattern/);
      return true;
    });
  });

  it('priority: names and digits, each including every more urgent level', async () => {
    assert.deepEqual(messages(await logs({ priority: 'err' })), ['healthy: upstream refused Authorization: Bearer [secret]']);
    assert.deepEqual(messages(await logs({ priority: '3' })), messages(await logs({ priority: 'err' })));
    assert.deepEqual(messages(await logs({ priority: 'warning' })), [
      'healthy: retrying login for [email] with password=[secret] api_key=[secret]',
      'healthy: upstream refused Authorization: Bearer [secret]',
    ]);
    assert.equal(messages(await logs({ priority: 'notice' })).length, 3);
    assert.deepEqual(messages(await logs({ priority: 'emerg' })), []);
    const all = messages(await logs({}));
    assert.deepEqual(messages(await logs({ priority: 'debug' })), all);
    assert.ok(!messages(await logs({ priority: 'info' })).includes('healthy: debug: cache warmed in 12ms'));
  });

  it('lines: the last n entries (a multi-line entry counts once, its lines all come)', async () => {
    assert.deepEqual(messages(await logs({ lines: 2 })), ['healthy: mark 3', 'healthy: ready']);
    assert.deepEqual(messages(await logs({ lines: 1, grep: 'config dump' })), ['healthy: config dump']);
    assert.equal((await logs({ lines: 1, grep: 'config dump' })).length, 4);
  });

  it('since and until, to the microsecond: both bounds include an entry exactly on them', async () => {
    const mark2 = realtimeOf('healthy: mark 2');
    const at = isoOfMicros(mark2);
    const before = isoOfMicros(mark2 - 1n);
    const after = isoOfMicros(mark2 + 1n);
    const marks = (params: Record<string, string>) => logs({ grep: 'mark', ...params }).then(messages);
    assert.deepEqual(await marks({ since: at }), ['healthy: mark 2', 'healthy: mark 3']);
    assert.deepEqual(await marks({ since: after }), ['healthy: mark 3']);
    assert.deepEqual(await marks({ until: at }), ['healthy: mark 1', 'healthy: mark 2']);
    assert.deepEqual(await marks({ until: before }), ['healthy: mark 1']);
    assert.deepEqual(await marks({ since: at, until: at }), ['healthy: mark 2']);
  });

  it('since and until to the second: the printed second of an entry as until leaves the entry out', async () => {
    const mark2 = realtimeOf('healthy: mark 2');
    const second = new Date(Number(mark2 / 1000n)).toISOString().slice(0, 19);
    const marks = (params: Record<string, string>) => logs({ grep: 'mark', ...params }).then(messages);
    assert.deepEqual(await marks({ since: `${second}Z` }), ['healthy: mark 2', 'healthy: mark 3']);
    // An entry logged at 11:00:02.345 is after "until 11:00:02": journalctl reads it as .000000.
    const expected = mark2 % 1_000_000n === 0n ? ['healthy: mark 1', 'healthy: mark 2'] : ['healthy: mark 1'];
    assert.deepEqual(await marks({ until: `${second}Z` }), expected);
    // The plain form and an ISO time with an offset name the same instants.
    assert.deepEqual(await marks({ since: second.replace('T', ' ') }), ['healthy: mark 2', 'healthy: mark 3']);
    const plusOne = new Date(Date.parse(`${second}Z`) + 3_600_000).toISOString().slice(0, 19);
    assert.deepEqual(await marks({ since: `${plusOne}+01:00` }), ['healthy: mark 2', 'healthy: mark 3']);
  });

  it('relative times: -1h holds everything, an until in the past before the unit started holds nothing', async () => {
    assert.deepEqual(messages(await logs({ since: '-1h' })), messages(await logs({})));
    assert.deepEqual(await logs({ until: '-1d' }), []);
  });

  it('a unit with no entries, and one systemd does not know, are empty answers', async () => {
    const { observation } = await capability('logs.query')({ unit: 'praxis-tpl@beta.service' }, context());
    assert.deepEqual(observation.lines, []);
    const unknown = await capability('logs.query')({ unit: 'praxis-nonexistent.service' }, context());
    assert.deepEqual(unknown.observation.lines, []);
  });

  it('systemd-written entries of a unit come with it: the timer-run oneshot', async () => {
    const { observation } = await capability('logs.query')({ unit: 'praxis-tick.service' }, context());
    assert.ok(
      (observation.lines as string[]).some((l) => l.endsWith(': tick: timer fired')),
      (observation.lines as string[]).join('\n'),
    );
  });

  it('the output cap: complete lines only, marked truncated; under the default cap, 1000 whole entries', async () => {
    await waitFor('the flood unit to finish logging', async () => {
      const { observation } = await capability('logs.query')({ unit: 'praxis-flood.service', grep: 'flood: done' }, context());
      return (observation.lines as string[]).length === 1 ? true : undefined;
    });
    const full = await capability('logs.query')({ unit: 'praxis-flood.service', lines: 1000 }, context());
    assert.equal(full.observation.truncated, false);
    const lines = full.observation.lines as string[];
    assert.equal(lines.length, 1000);
    assert.match(lines.at(-1)!, / flood: done$/);
    assert.match(lines[0]!, / flood: line 2002 x{100}$/);

    const capped = logsQueryImplementation({ runner: execFileRunner({ maxOutputBytes: 16 * 1024 }) });
    const cut = await capped({ unit: 'praxis-flood.service', lines: 1000 }, context());
    assert.equal(cut.observation.truncated, true);
    assert.match(cut.summary, /cut at the output cap/);
    const kept = cut.observation.lines as string[];
    assert.ok(kept.length > 50 && kept.length < 130, String(kept.length));
    // The newest entries are the ones kept, in time order, each one whole.
    assert.match(kept.at(-1)!, / flood: done$/);
    const numbers = kept.slice(0, -1).map((line) => {
      const m = /^\S+ praxis-host flood\[\d+\]: flood: line (\d{4}) x{100}$/.exec(line);
      assert.ok(m, line);
      return Number(m[1]);
    });
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => 3000 - numbers.length + 1 + i),
    );
  });
});
