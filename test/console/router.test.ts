// The console's hash routes, without a browser: a malformed % escape in the address names no page
// (decodeURIComponent threw during render and blanked the console until a reload).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRoute } from '../../web/src/router.ts';

describe('console routes', () => {
  it('reads pages, ids and queries; a malformed escape is Not found, not a throw', () => {
    assert.deepEqual(parseRoute('#/plans/abc?step=N1'), { page: 'plan', id: 'abc', step: 'N1' });
    assert.deepEqual(parseRoute('#/minds/lab%20one/timeline'), { page: 'timeline', scope: 'mind', id: 'lab one' });
    assert.equal(parseRoute('').page, 'plans');
    assert.deepEqual(parseRoute('#/plans/%E0%A4%A'), { page: 'not_found', path: '/plans/%E0%A4%A' });
    assert.deepEqual(parseRoute('#/minds/%/timeline'), { page: 'not_found', path: '/minds/%/timeline' });
  });
});
