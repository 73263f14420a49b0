// The stand-in's write endpoints, driven by the real @kubernetes/client-node: create, replace and
// patch with resourceVersion preconditions (409 Conflict on a stale one, as kube-apiserver answers),
// create of an existing name (409 AlreadyExists), delete (Success Status, then 404).
import { AdmissionregistrationV1Api, ApiException, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type ResourceType, type StandInApiServer, startStandInApiServer } from './index.ts';

const secrets: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const validating: ResourceType = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
};

let api: StandInApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function failure(promise: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    return { code: error.code, body: body as Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('stand-in write routes', () => {
  it('create, read, replace and merge-patch a Secret; a stale resourceVersion is a 409 Conflict in kube-apiserver’s words', async () => {
    api = await startStandInApiServer({ writableResources: [secrets] });
    const core = api.kubeConfig.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedSecret({
      namespace: 'ns',
      body: { metadata: { name: 'tls', resourceVersion: '999' }, data: { a: 'MQ==' } },
    });
    expect(created.metadata).toMatchObject({ name: 'tls', namespace: 'ns' });
    const first = created.metadata?.resourceVersion ?? '';
    expect(first).not.toBe('999');

    const again = await failure(core.createNamespacedSecret({ namespace: 'ns', body: { metadata: { name: 'tls' } } }));
    expect(again).toMatchObject({ code: 409, body: { reason: 'AlreadyExists', message: 'secrets "tls" already exists' } });

    const replaced = await core.replaceNamespacedSecret({
      name: 'tls',
      namespace: 'ns',
      body: { metadata: { name: 'tls', resourceVersion: first }, data: { a: 'Mg==' } },
    });
    expect(replaced.data).toEqual({ a: 'Mg==' });
    expect(replaced.metadata?.uid).toBe(created.metadata?.uid);

    const stale = await failure(
      core.replaceNamespacedSecret({
        name: 'tls',
        namespace: 'ns',
        body: { metadata: { name: 'tls', resourceVersion: first }, data: { a: 'Mw==' } },
      }),
    );
    expect(stale).toMatchObject({
      code: 409,
      body: {
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on secrets "tls": the object has been modified; please apply your changes to the latest version and try again',
        details: { name: 'tls', kind: 'secrets' },
      },
    });

    const patched = await core.patchNamespacedSecret(
      { name: 'tls', namespace: 'ns', body: { metadata: { resourceVersion: replaced.metadata?.resourceVersion }, data: { b: 'NA==' } } },
      merge,
    );
    expect(patched.data).toEqual({ a: 'Mg==', b: 'NA==' });
    const stalePatch = await failure(
      core.patchNamespacedSecret(
        { name: 'tls', namespace: 'ns', body: { metadata: { resourceVersion: replaced.metadata?.resourceVersion }, data: { c: 'NQ==' } } },
        merge,
      ),
    );
    expect(stalePatch.code).toBe(409);
    // Without a resourceVersion a patch is unconditional.
    expect((await core.patchNamespacedSecret({ name: 'tls', namespace: 'ns', body: { data: { c: 'NQ==' } } }, merge)).data).toEqual({
      a: 'Mg==',
      b: 'NA==',
      c: 'NQ==',
    });
    expect((await core.readNamespacedSecret({ name: 'tls', namespace: 'ns' })).data).toEqual({ a: 'Mg==', b: 'NA==', c: 'NQ==' });
    expect(api.calls.count('patch secrets')).toBe(3);
  });

  it('cluster-scoped webhook configurations: patch replaces the webhooks list, delete answers Success and then 404', async () => {
    api = await startStandInApiServer({ writableResources: [validating] });
    api.store.put(validating, { metadata: { name: 'ac', annotations: { keep: 'me' } } });
    const admission = api.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const webhooks = [
      {
        name: 'validate.example.com',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        clientConfig: { url: 'https://example.com/v' },
      },
    ];
    const patched = await admission.patchValidatingWebhookConfiguration({ name: 'ac', body: { webhooks } }, merge);
    expect(patched.webhooks?.map((w) => w.name)).toEqual(['validate.example.com']);
    expect(patched.metadata?.annotations).toEqual({ keep: 'me' });
    const deleted = await admission.deleteValidatingWebhookConfiguration({ name: 'ac' });
    expect(deleted).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'ac', kind: 'validatingwebhookconfigurations' } });
    expect(await failure(admission.deleteValidatingWebhookConfiguration({ name: 'ac' }))).toMatchObject({
      code: 404,
      body: { reason: 'NotFound' },
    });
    expect(await failure(admission.readValidatingWebhookConfiguration({ name: 'ac' }))).toMatchObject({ code: 404 });
  });

  it('refuses a patch type it does not apply with 415', async () => {
    api = await startStandInApiServer({ writableResources: [secrets] });
    api.store.put(secrets, { metadata: { name: 'tls', namespace: 'ns' } });
    const core = api.kubeConfig.makeApiClient(CoreV1Api);
    const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
    expect((await failure(core.patchNamespacedSecret({ name: 'tls', namespace: 'ns', body: { data: {} } }, strategic))).code).toBe(415);
  });
});
