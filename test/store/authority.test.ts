// The authority repositories (policy rules, commitments, executions, approvals, capability
// requests, grants) on both stores. One store per kind serves every family: each test seeds its
// own minds, so they do not see each other's rows, and a throwaway database per family would
// only add set-up time. The tests themselves live in ./authority/, one module per family.

import { describe } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { approvalTests } from './authority/approvals.ts';
import { executionTests } from './authority/executions.ts';
import { capabilityRequestTests, grantTests } from './authority/grants.ts';
import { commitmentTests, policyRuleTests } from './authority/policy.ts';

for (const kind of STORE_KINDS) {
  describe(`authority repositories (${kind})`, () => {
    const current = useStore(kind);
    policyRuleTests(current);
    commitmentTests(current);
    executionTests(current);
    approvalTests(current);
    capabilityRequestTests(current);
    grantTests(current);
  });
}
