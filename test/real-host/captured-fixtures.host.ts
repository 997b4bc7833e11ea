// The fixtures the fast tests parse (test/host/support/captured/) are what systemd really
// prints: every command is run again here, through Praxis's real runner, and the live answer
// must equal the captured one once times and PIDs are set aside.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { journalEntries } from '../../src/capabilities/host/logs-query.ts';
import type { CommandResult, HostCommand } from '../../src/capabilities/host/runner.ts';
import { CAPTURES, normalised } from './support/captures.ts';
import { runner, settle, waitFor } from './support/container.ts';

type Captured = CommandResult & { command: HostCommand };

function captured(name: string): Captured {
  return JSON.parse(readFileSync(new URL(`../host/support/captured/${name}.json`, import.meta.url), 'utf8')) as Captured;
}

describe('captured fixtures match live systemd', () => {
  it('every captured command is still on the list, and every listed one was captured', () => {
    for (const [name, command] of Object.entries(CAPTURES)) assert.deepEqual(captured(name).command, command, name);
  });

  for (const [name, command] of Object.entries(CAPTURES)) {
    it(name, async () => {
      await settle('praxis-healthy.service', ['active']);
      await settle('praxis-flaky.service', ['failed']);
      const expected = captured(name);
      const live = await waitFor(`${name} to have all its entries`, async () => {
        const result = await runner.run(command, { timeoutMs: 10_000 });
        // The healthy unit logs for about four seconds after it starts.
        return command.program === 'journalctl' &&
          command.unit === 'praxis-healthy.service' &&
          !name.includes('none') &&
          !name.includes('bad') &&
          journalEntries(normalised(result.stdout)).length < journalEntries(normalised(expected.stdout)).length
          ? undefined
          : result;
      });
      assert.equal(live.exitCode, expected.exitCode);
      assert.equal(live.truncated, false);
      assert.equal(normalised(live.stderr), normalised(expected.stderr));
      if (name === 'journal-all') {
        // journald interleaves the stream and the native-protocol entries as they arrive: the
        // same entries, not always in the same order.
        assert.deepEqual(journalEntries(normalised(live.stdout)).sort(), journalEntries(normalised(expected.stdout)).sort());
      } else {
        assert.equal(normalised(live.stdout), normalised(expected.stdout));
      }
    });
  }
});
