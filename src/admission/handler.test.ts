import { describe, expect, it } from 'vitest';
import { deadlineOf } from '../../test/support/attributes.ts';
import { recordingPlugin } from '../../test/support/recording-plugin.ts';
import { AdmissionChain } from './chain.ts';
import { forbidden } from './errors.ts';
import { handleAdmission } from './handler.ts';
import type { AdmissionRequest } from './review.ts';

const request = (): AdmissionRequest => ({
  uid: 'req-1',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  namespace: 'default',
  operation: 'CREATE',
  userInfo: { username: 'alice' },
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
});

const never = deadlineOf();

function decodePatch(patch: string | undefined): unknown {
  return JSON.parse(Buffer.from(patch!, 'base64').toString('utf8'));
}

describe('handleAdmission', () => {
  it('answers one JSONPatch for all mutations and leaves the request object untouched', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log,
          mutate: (a) => {
            a.object!.metadata!.labels = { x: 'y' };
          },
        }),
      },
    ]);
    const req = request();
    const { response } = await handleAdmission(chain, 'admit', req, never);
    expect(response).toMatchObject({ uid: 'req-1', allowed: true, patchType: 'JSONPatch' });
    expect(decodePatch(response.patch)).toEqual([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]);
    expect(req.object!.metadata!.labels).toBeUndefined();
  });

  it('sends no patch when nothing changed', async () => {
    const chain = new AdmissionChain([{ mode: 'enforce', plugin: recordingPlugin({ name: 'A', log: [] }) }]);
    const { response } = await handleAdmission(chain, 'admit', request(), never);
    expect(response).toEqual({ uid: 'req-1', allowed: true });
  });

  it('denies with the Forbidden status, name falling back to generateName', async () => {
    const chain = new AdmissionChain([
      {
        mode: 'enforce',
        plugin: recordingPlugin({
          name: 'A',
          log: [],
          check: (a) => {
            throw forbidden(a, 'not today');
          },
        }),
      },
    ]);
    const { response, rejectedBy } = await handleAdmission(chain, 'validate', request(), never);
    expect(rejectedBy).toBe('A');
    expect(response).toEqual({
      uid: 'req-1',
      allowed: false,
      status: {
        metadata: {},
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'pods "web-" is forbidden: not today',
        details: { name: 'web-', group: '', kind: 'pods' },
      },
    });
  });

  it('answers by the deadline even when a plugin hangs', async () => {
    const chain = new AdmissionChain([
      { mode: 'enforce', plugin: recordingPlugin({ name: 'slow', log: [], check: () => new Promise(() => {}) }) },
    ]);
    const { response } = await handleAdmission(chain, 'validate', request(), deadlineOf(AbortSignal.timeout(50)));
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 500, message: 'Internal error occurred: admission request deadline exceeded' });
  });

  it('says the request was canceled, not timed out, when the caller goes away', async () => {
    const chain = new AdmissionChain([
      { mode: 'enforce', plugin: recordingPlugin({ name: 'slow', log: [], check: () => new Promise(() => {}) }) },
    ]);
    const caller = new AbortController();
    const handled = handleAdmission(chain, 'validate', request(), deadlineOf(caller.signal));
    caller.abort(new Error('client closed the connection'));
    const { response } = await handled;
    expect(response.status).toMatchObject({
      code: 500,
      message: 'Internal error occurred: admission request canceled: client closed the connection',
    });
  });

  it('returns warnings and audit annotations from warn-mode rejections', async () => {
    const chain = new AdmissionChain([
      {
        mode: 'warn',
        plugin: recordingPlugin({
          name: 'A',
          log: [],
          check: (a) => {
            throw forbidden(a, 'careful');
          },
        }),
      },
    ]);
    const { response } = await handleAdmission(chain, 'validate', request(), never);
    expect(response).toEqual({
      uid: 'req-1',
      allowed: true,
      warnings: ['[A] pods "web-" is forbidden: careful'],
      auditAnnotations: { 'A.warn-rejection': 'pods "web-" is forbidden: careful' },
    });
  });
});
