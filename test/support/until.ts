// Waits for something another process or the executor's loop brings about, polling every 20 ms;
// fails naming what it waited for once `timeoutMs` has passed.

import assert from 'node:assert/strict';

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `gave up waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
