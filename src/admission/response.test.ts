import { describe, expect, it } from 'vitest';
import { badRequest, newForbidden } from '../api/status-error.ts';
import { allowed, denied, errored, failureStatus, patched, withAuditAnnotations, withWarnings } from './response.ts';

describe('admission responses', () => {
  it('allowed and patched: no patch field at all when nothing changed, else one base64 JSONPatch', () => {
    expect(allowed('u')).toEqual({ uid: 'u', allowed: true });
    expect(patched('u', [])).toEqual({ uid: 'u', allowed: true });
    const response = patched('u', [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]);
    expect(response).toMatchObject({ uid: 'u', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8'))).toEqual([
      { op: 'add', path: '/metadata/labels', value: { a: 'b' } },
    ]);
  });

  it("denied carries the rejection's Status with empty metadata, as kube-apiserver writes it", () => {
    const rejection = newForbidden({ group: '', resource: 'pods' }, 'web', 'not today');
    expect(denied('u', rejection)).toEqual({ uid: 'u', allowed: false, status: { metadata: {}, ...rejection.status } });
  });

  it.each([
    ['a StatusError as it is', badRequest('bad'), { code: 400, reason: 'BadRequest', message: 'bad' }],
    ['an Error as an internal error', new Error('boom'), { code: 500, reason: 'InternalError', message: 'Internal error occurred: boom' }],
    [
      'a stack overflow as too deep',
      new RangeError('Maximum call stack size exceeded'),
      { code: 500, message: 'Internal error occurred: object is nested too deeply to process' },
    ],
    ['a thrown string', 'plain', { code: 500, message: 'Internal error occurred: plain' }],
  ])('errored turns %s', (_name, thrown, status) => {
    expect(errored('u', thrown)).toMatchObject({ uid: 'u', allowed: false, status: { status: 'Failure', ...status } });
  });

  it('adds warnings and audit annotations only when there are some', () => {
    expect(withAuditAnnotations(withWarnings(allowed('u'), []), {})).toEqual({ uid: 'u', allowed: true });
    expect(withAuditAnnotations(withWarnings(allowed('u'), ['w']), { 'P.path': 'x' })).toEqual({
      uid: 'u',
      allowed: true,
      warnings: ['w'],
      auditAnnotations: { 'P.path': 'x' },
    });
  });

  it('failureStatus is a whole metav1.Status', () => {
    expect(failureStatus(404, 'NotFound', 'not here')).toEqual({
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: 'not here',
    });
  });
});
