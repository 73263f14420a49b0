// Ports upstream plugin/pkg/auth/authorizer/rbac/rbac_test.go TestRuleMatches (every row), plus
// the evaluation_helpers.go behaviours seed 001 documents. No evaluation_helpers_test.go exists
// in the upstream index we could read, so nothing of it is ported; the rows below test the same
// helpers (VerbMatches ... NonResourceURLMatches) directly.
import { describe, expect, it } from 'vitest';
import type { PolicyRule } from '../../../api/rbac.ts';
import type { RbacRequest } from './request.ts';
import { nonResourceURLMatches, resourceMatches, resourceNameMatches, ruleAllows } from './rule-matching.ts';
import { ruleMatchesCases } from './testdata/upstream-cases.ts';

const base: RbacRequest = {
  user: {},
  resourceRequest: true,
  verb: '',
  namespace: '',
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
  path: '',
};
const res = (verb: string, group: string, resource: string, subresource = '', name = ''): RbacRequest => ({
  ...base,
  verb,
  apiGroup: group,
  resource,
  subresource,
  name,
});
const url = (verb: string, path: string): RbacRequest => ({ ...base, resourceRequest: false, verb, path });

describe.each(ruleMatchesCases)('TestRuleMatches: $name', ({ rule: policyRule, rows }) => {
  it.each(
    rows.map(([request, expected]) => ({
      request,
      expected,
      label: request.resourceRequest
        ? `${request.verb} ${request.apiGroup}/${request.resource}/${request.subresource}`
        : `${request.verb} ${request.path}`,
    })),
  )('$label -> $expected', ({ request, expected }) => {
    expect(ruleAllows(request, policyRule)).toBe(expected);
  });
});

describe('evaluation helpers (seed 001 rows)', () => {
  const seedRule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'], resourceNames: ['web-1'] };
  it.each([
    [res('get', '', 'pods', '', 'web-1'), true],
    [res('delete', '', 'pods', '', 'web-1'), false],
    [res('get', '', 'pods', '', 'web-2'), false],
    [res('get', '', 'pods', 'status', 'web-1'), true],
    [res('get', '', 'pods', 'log', 'web-1'), false],
  ])('pods + */status with resourceNames [web-1]: %# -> %s', (request, expected) => {
    expect(ruleAllows(request, seedRule)).toBe(expected);
  });

  it.each(['get', 'delete', 'create', 'anything-at-all'])('an all-wildcard rule allows %s', (verb) => {
    expect(ruleAllows(res(verb, 'apps', 'deployments'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(true);
  });

  it.each([
    ['/healthz', true],
    ['/healthz/etcd', true],
    ['/healthzzzzz', true],
    ['/healthz-internal', true],
    ['/livez', false],
  ])('"/healthz*" is a bare prefix: %s -> %s', (path, expected) => {
    expect(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/healthz*'] }, path)).toBe(expected);
  });

  it('trims every trailing star before the prefix comparison', () => {
    expect(nonResourceURLMatches({ verbs: ['get'], nonResourceURLs: ['/api**'] }, '/apis')).toBe(true);
  });

  it('a subresource request never matches the bare resource; */sub needs the exact subresource', () => {
    const pods: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['pods'] };
    expect(resourceMatches(pods, 'pods/status', 'status')).toBe(false);
    expect(resourceMatches({ ...pods, resources: ['*/status'] }, 'pods/status', 'status')).toBe(true);
    expect(resourceMatches({ ...pods, resources: ['*/status'] }, 'pods', '')).toBe(false);
    expect(resourceMatches({ ...pods, resources: ['*/status'] }, 'pods/xstatus', 'xstatus')).toBe(false);
    expect(resourceMatches({ ...pods, resources: ['*/stat'] }, 'pods/status', 'status')).toBe(false);
    expect(resourceMatches({ ...pods, resources: ['*'] }, 'pods/status', 'status')).toBe(true);
  });

  it('resourceNames: empty allows any name (also none), otherwise exact; matching is case-sensitive', () => {
    expect(resourceNameMatches({ verbs: [] }, '')).toBe(true);
    expect(resourceNameMatches({ verbs: [], resourceNames: ['a'] }, '')).toBe(false);
    expect(ruleAllows(res('GET', '', 'pods'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
  });

  it('missing lists match nothing (a rule without apiGroups never allows a resource request)', () => {
    expect(ruleAllows(res('get', '', 'pods'), { verbs: ['get'], resources: ['pods'] })).toBe(false);
    expect(ruleAllows(url('get', '/x'), { verbs: ['get'] })).toBe(false);
  });
});
