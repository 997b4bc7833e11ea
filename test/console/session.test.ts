// The console's sign-in link: `token=` is taken out of the URL fragment and the route it was part
// of survives, with every other query parameter as written.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitTokenFragment } from '../../web/src/session.ts';

describe('console sign-in link', () => {
  it('removes the token and keeps the route and its query', () => {
    const cases: [string, { token: string; route: string } | null][] = [
      ['#token=T', { token: 'T', route: '/' }],
      ['#token=praxis_a%2Db', { token: 'praxis_a-b', route: '/' }],
      ['#/plans?token=T', { token: 'T', route: '/plans' }],
      ['#/plans?token=T&status=x', { token: 'T', route: '/plans?status=x' }],
      ['#/plans?status=x&token=T', { token: 'T', route: '/plans?status=x' }],
      ['#/plans?status=x&token=T&mind=m%20n', { token: 'T', route: '/plans?status=x&mind=m%20n' }],
      ['#/plans/0190/?step=a&token=T', { token: 'T', route: '/plans/0190/?step=a' }],
      ['#/plans?notoken=1&status=x', null],
      ['#/approvals', null],
      ['', null],
      ['#/plans?token=', { token: '', route: '/plans' }],
    ];
    for (const [hash, expected] of cases) assert.deepEqual(splitTokenFragment(hash), expected, hash);
  });
});
