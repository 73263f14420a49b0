// Spec -> attributes and result -> status, as the SubjectAccessReview endpoint converts them, and
// the whole review against a recording fake Authorizer (upstream's rest_test uses a fake authorizer
// the same way). The round trip through the cluster authorizer is an integration test.
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../api/status-error.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../ports/authorizer.ts';
import { attributesFromSpec, statusFromResult } from './conversion.ts';
import { decodeSubjectAccessReview, SubjectAccessReviewDecodeError } from './decode.ts';
import { reviewSubjectAccess } from './review.ts';

class RecordingAuthorizer implements Authorizer {
  readonly seen: AuthorizationAttributes[] = [];
  readonly #result: AuthorizationResult;
  constructor(result: AuthorizationResult) {
    this.#result = result;
  }
  async authorize(attributes: AuthorizationAttributes): Promise<AuthorizationResult> {
    this.seen.push(attributes);
    return this.#result;
  }
}

describe('attributesFromSpec', () => {
  it('copies the subject and the resource attributes', () => {
    const spec = {
      user: 'bob',
      groups: ['g'],
      uid: 'u-1',
      extra: { scopes: ['a'] },
      resourceAttributes: {
        namespace: 'myns',
        verb: 'create',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        subresource: 'scale',
        name: 'd',
      },
    };
    const attributes = attributesFromSpec(spec);
    expect(attributes).toEqual({
      user: { username: 'bob', groups: ['g'], uid: 'u-1', extra: { scopes: ['a'] } },
      resourceAttributes: spec.resourceAttributes,
    });
  });

  it('non-resource attributes; a missing user is the empty username and no groups', () => {
    expect(attributesFromSpec({ groups: ['g'], nonResourceAttributes: { verb: 'get', path: '/mypath' } })).toEqual({
      user: { username: '', groups: ['g'] },
      nonResourceAttributes: { verb: 'get', path: '/mypath' },
    });
  });
});

describe('statusFromResult', () => {
  it.each<[AuthorizationResult, object]>([
    [
      { decision: 'allow', reason: 'allowed' },
      { allowed: true, reason: 'allowed' },
    ],
    [
      { decision: 'deny', reason: '' },
      { allowed: false, denied: true },
    ],
    [
      { decision: 'no-opinion', reason: 'myreason', error: 'myerror' },
      { allowed: false, reason: 'myreason', evaluationError: 'myerror' },
    ],
    [{ decision: 'no-opinion', reason: '' }, { allowed: false }],
  ])('%j -> %j', (result, status) => {
    expect(statusFromResult(result)).toEqual(status);
  });

  it('adds notes for selector requirements the server would have had to drop (BuildEvaluationError)', () => {
    const spec = {
      user: 'bob',
      resourceAttributes: {
        verb: 'list',
        resource: 'pods',
        fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['a', 'b'] }] },
        labelSelector: {
          requirements: [
            { key: 'app', operator: 'Exists' },
            { key: 'x', operator: 'Near', values: ['y'] },
          ],
        },
      },
    };
    expect(statusFromResult({ decision: 'no-opinion', reason: '', error: 'boom' }, spec)).toEqual({
      allowed: false,
      evaluationError:
        'boom; spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector partially ignored due to parse error',
    });
    const usable = {
      ...spec,
      resourceAttributes: {
        ...spec.resourceAttributes,
        fieldSelector: { requirements: [{ key: 'k', operator: 'NotIn', values: ['v'] }] },
        labelSelector: undefined,
      },
    };
    expect(statusFromResult({ decision: 'allow', reason: '' }, usable)).toEqual({ allowed: true });
  });
});

describe('decodeSubjectAccessReview', () => {
  it.each<[unknown, string]>([
    ['text', 'SubjectAccessReview: expected an object, got string'],
    [{ apiVersion: 'v1', kind: 'Pod' }, 'expected apiVersion authorization.k8s.io/v1 and kind SubjectAccessReview, got "v1" and "Pod"'],
    [
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { groups: 'admins' } },
      'spec.groups: expected an array of strings, got string',
    ],
    [
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 3 } } },
      'spec.resourceAttributes.verb: expected a string, got number',
    ],
    [
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { resourceAttributes: { labelSelector: { requirements: [{ key: 'a', operator: 'In', values: [1] }] } } },
      },
      'spec.resourceAttributes.labelSelector.requirements[0].values[0]: expected a string, got number',
    ],
  ])('%j is refused', (value, message) => {
    expect(() => decodeSubjectAccessReview(value)).toThrow(new SubjectAccessReviewDecodeError(message));
  });
});

describe('reviewSubjectAccess', () => {
  const review = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: 'bob', nonResourceAttributes: { verb: 'get', path: '/mypath' } },
  };

  it('asks the authorizer and fills in the status', async () => {
    const authorizer = new RecordingAuthorizer({ decision: 'no-opinion', reason: 'myreason', error: 'myerror' });
    expect(await reviewSubjectAccess(review, authorizer)).toEqual({
      ...review,
      status: { allowed: false, reason: 'myreason', evaluationError: 'myerror' },
    });
    expect(authorizer.seen).toEqual([{ user: { username: 'bob', groups: [] }, nonResourceAttributes: { verb: 'get', path: '/mypath' } }]);
  });

  it('rejects an invalid review with the 422 and never asks', async () => {
    const authorizer = new RecordingAuthorizer({ decision: 'allow', reason: '' });
    const error = await reviewSubjectAccess({ ...review, spec: {} }, authorizer).catch((e: unknown) => e);
    expect(isStatusError(error) && error.status.code).toBe(422);
    expect(authorizer.seen).toEqual([]);
  });
});
