// The node:test reporter scripts/run-tests.mjs gives each test file: one JSON line per failed
// test (its path of suite names and the error as node's own reporters print it) and one closing
// line with the file's counts. The runner turns these into its compact report.
import { inspect } from 'node:util';

export default async function* report(source) {
  const counts = { tests: 0, passed: 0, failed: 0, skipped: 0 };
  const suites = [];
  for await (const event of source) {
    const data = event.data;
    if (event.type === 'test:start') {
      suites[data.nesting] = data.name;
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    // A suite's own failure only repeats its tests' ("N subtests failed"); a suite that failed
    // in a hook of its own is reported, since no test says so.
    const isSuite = data.details?.type === 'suite';
    const error = data.details?.error;
    if (isSuite && (event.type === 'test:pass' || error?.failureType === 'subtestsFailed')) continue;
    if (!isSuite) counts.tests += 1;
    if (data.skip !== undefined || data.todo !== undefined) {
      counts.skipped += 1;
    } else if (event.type === 'test:fail') {
      if (!isSuite) counts.failed += 1;
      const path = [...suites.slice(0, data.nesting), data.name];
      yield `${JSON.stringify({ failure: { path, error: inspect(error?.cause ?? error, { depth: 6 }) } })}\n`;
    } else {
      counts.passed += 1;
    }
  }
  yield `${JSON.stringify({ counts })}\n`;
}
