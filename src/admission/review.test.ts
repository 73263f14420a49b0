import { describe, expect, it } from 'vitest';
import { BadReviewError, decodeReview } from './review.ts';

const valid = () => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'abc',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object: { apiVersion: 'v1', kind: 'Pod' },
  },
});

type Mutation = (review: ReturnType<typeof valid> & Record<string, unknown>) => unknown;

describe('decodeReview', () => {
  it('accepts v1 and v1beta1 and reports which', () => {
    expect(decodeReview(valid()).apiVersion).toBe('admission.k8s.io/v1');
    expect(decodeReview({ ...valid(), apiVersion: 'admission.k8s.io/v1beta1' }).apiVersion).toBe('admission.k8s.io/v1beta1');
  });

  it("freezes the requester's identity, groups and extra, so no code can change who is asking", () => {
    const review = {
      ...valid(),
      request: { ...valid().request, userInfo: { username: 'alice', groups: ['dev'], extra: { scopes: ['a'] } } },
    };
    const { userInfo } = decodeReview(review).request;
    expect(Object.isFrozen(userInfo)).toBe(true);
    expect(() => userInfo!.groups!.push('system:masters')).toThrow(TypeError);
    expect(() => userInfo!.extra!.scopes!.push('b')).toThrow(TypeError);
    expect(() => {
      userInfo!.extra!.other = ['x'];
    }).toThrow(TypeError);
    expect(userInfo).toEqual({ username: 'alice', groups: ['dev'], extra: { scopes: ['a'] } });
  });

  it.each<[string, Mutation, string]>([
    ['not an object', () => [1, 2], 'body is not a JSON object'],
    ['null', () => null, 'body is not a JSON object'],
    ['wrong kind', (r) => ({ ...r, kind: 'Pod' }), 'expected kind AdmissionReview, got "Pod"'],
    [
      'a deeply nested kind',
      (r) => ({ ...r, kind: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) }),
      'expected kind AdmissionReview, got an array',
    ],
    ['wrong apiVersion', (r) => ({ ...r, apiVersion: 'admission.k8s.io/v2' }), 'unsupported apiVersion "admission.k8s.io/v2"'],
    ['missing request', (r) => ({ ...r, request: undefined }), 'AdmissionReview has no request'],
    ['missing uid', (r) => ({ ...r, request: { ...r.request, uid: '' } }), 'request.uid is missing'],
    ['bad operation', (r) => ({ ...r, request: { ...r.request, operation: 'PATCH' } }), 'request.operation "PATCH" is not one of'],
    ['missing kind', (r) => ({ ...r, request: { ...r.request, kind: undefined } }), 'request.kind is missing'],
    [
      'missing resource name',
      (r) => ({ ...r, request: { ...r.request, resource: { group: '', version: 'v1' } } }),
      'request.resource.resource is missing',
    ],
    ['object not an object', (r) => ({ ...r, request: { ...r.request, object: 'x' } }), 'request.object must be an object'],
    ['namespace not a string', (r) => ({ ...r, request: { ...r.request, namespace: 5 } }), 'request.namespace must be a string'],
    [
      'groups not an array',
      (r) => ({ ...r, request: { ...r.request, userInfo: { username: 'a', groups: 'system:masters' } } }),
      'request.userInfo.groups must be an array of strings',
    ],
    [
      'a group not a string',
      (r) => ({ ...r, request: { ...r.request, userInfo: { username: 'a', groups: [['system:masters']] } } }),
      'request.userInfo.groups must be an array of strings',
    ],
    [
      'username not a string',
      (r) => ({ ...r, request: { ...r.request, userInfo: { username: 7 } } }),
      'request.userInfo.username must be a string',
    ],
    [
      'extra values not arrays',
      (r) => ({ ...r, request: { ...r.request, userInfo: { username: 'a', extra: { scopes: 'x' } } } }),
      'request.userInfo.extra must map keys to arrays of strings',
    ],
    ['dryRun not a boolean', (r) => ({ ...r, request: { ...r.request, dryRun: 'yes' } }), 'request.dryRun must be a boolean'],
  ])('rejects %s', (_name, mutate, message) => {
    const body = mutate(valid() as ReturnType<typeof valid> & Record<string, unknown>);
    expect(() => decodeReview(body)).toThrow(BadReviewError);
    expect(() => decodeReview(body)).toThrow(message);
  });
});
