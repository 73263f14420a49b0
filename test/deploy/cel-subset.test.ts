// The CEL subset evaluator the chart and kubectl tests trust to say which requests reach the webhook:
// it must evaluate the chart's conditions as the API server would, and refuse what it cannot.
import { describe, expect, it } from 'vitest';
import { evaluateCelSubset } from './cel-subset.ts';

const ownerReferenceWrite =
  '(object != null && has(object.metadata) && has(object.metadata.ownerReferences)) || (oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.ownerReferences))';
const podsOrOwnerReferenceWrite = `(request.resource.group == '' && request.resource.resource == 'pods') || ${ownerReferenceWrite}`;
const request = (group: string, resource: string) => ({
  resource: { group, version: 'v1', resource },
  subResource: '',
  operation: 'UPDATE',
});
const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1' };
const event = { kind: 'Event', metadata: { name: 'e', namespace: 'ns' } };
const configMap = { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
const ownedConfigMap = { kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', ownerReferences: [owner] } };

describe('the chart’s owner-reference condition', () => {
  it.each([
    ['an Event without ownerReferences (CREATE)', request('', 'events'), event, null, false],
    ['a ConfigMap without ownerReferences (UPDATE)', request('', 'configmaps'), configMap, configMap, false],
    ['a ConfigMap with ownerReferences (CREATE)', request('', 'configmaps'), ownedConfigMap, null, true],
    ['a ConfigMap gaining ownerReferences', request('', 'configmaps'), ownedConfigMap, configMap, true],
    ['a ConfigMap losing its ownerReferences (only the old object has them)', request('', 'configmaps'), configMap, ownedConfigMap, true],
    ['an object without metadata', request('', 'configmaps'), { kind: 'ConfigMap' }, null, false],
    ['no object at all', request('', 'configmaps'), null, null, false],
    [
      'ownerReferences present but null still counts as present (has() checks the key)',
      request('', 'configmaps'),
      { metadata: { ownerReferences: null } },
      null,
      true,
    ],
  ])('%s → %s', (_label, req, object, oldObject, sent) => {
    expect(evaluateCelSubset(ownerReferenceWrite, { request: req, object, oldObject })).toBe(sent);
  });

  it('with a pod plugin enabled, pods are sent whatever their metadata; other kinds are still filtered', () => {
    const pod = { kind: 'Pod', metadata: { name: 'p' } };
    expect(evaluateCelSubset(podsOrOwnerReferenceWrite, { request: request('', 'pods'), object: pod })).toBe(true);
    expect(evaluateCelSubset(podsOrOwnerReferenceWrite, { request: request('', 'pods'), object: pod, oldObject: pod })).toBe(true);
    expect(evaluateCelSubset(ownerReferenceWrite, { request: request('', 'pods'), object: pod })).toBe(false);
    expect(evaluateCelSubset(podsOrOwnerReferenceWrite, { request: request('example.com', 'pods'), object: pod })).toBe(false);
    expect(evaluateCelSubset(podsOrOwnerReferenceWrite, { request: request('', 'configmaps'), object: configMap })).toBe(false);
    expect(evaluateCelSubset(podsOrOwnerReferenceWrite, { request: request('', 'configmaps'), object: ownedConfigMap })).toBe(true);
  });
});

describe('the subset', () => {
  const variables = { request: { resource: { group: 'apps', resource: 'deployments' }, operation: 'CREATE' }, object: configMap };

  it.each([
    ["request.resource.group == 'apps'", true],
    ["request.resource.group != 'apps'", false],
    ["!(request.resource.resource in ['pods', 'deployments'])", false],
    ["request.resource.resource in ['pods']", false],
    ['object != null', true],
    ['oldObject == null', true],
    ['has(object.metadata) && !has(object.spec)', true],
    ["has(object.metadata.name) && object.metadata.name == 'c'", true],
    ["request.operation == 'UPDATE' || has(object.metadata.namespace)", true],
  ])('%s → %s', (expression, expected) => {
    expect(evaluateCelSubset(expression, variables)).toBe(expected);
  });

  it.each([
    ['a function other than has()', 'size(object.metadata) == 1'],
    ['an unknown variable', "params.x == 'y'"],
    ['a variable name with a known prefix', 'objects != null'],
    ['has() without a field selection', 'has(object)'],
    ['arithmetic', "request.resource.group + 'x' == 'appsx'"],
    ['a double-quoted string', 'request.resource.group == "apps"'],
    ['in over something that is not a path', "'a' in ['a']"],
    ['in over a list of non-strings', 'request.resource.group in [request.resource.group]'],
    ['selecting a missing field (CEL: no such key)', "object.spec.replicas == 'x'"],
    ['selecting from null (CEL: no matching overload)', "oldObject.metadata.name == 'x'"],
    ['has() on a path through a missing field', 'has(object.spec.replicas)'],
    ['a non-boolean result', 'object.metadata'],
  ])('refuses %s', (_label, expression) => {
    expect(() => evaluateCelSubset(expression, variables)).toThrow();
  });
});
