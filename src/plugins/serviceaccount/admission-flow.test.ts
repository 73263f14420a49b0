// Behaviour beyond upstream's test file, from upstream's code: how lookups are counted across
// Admit (which ends with its own Validate) and the validating phase, the automount decision, the
// deprecated serviceAccount alias, reuse of an existing token volume, the exact patch, how lookup
// errors are wrapped, and the annotation's Go ParseBool semantics.
import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { attributesRecord, deadlineOf, requestContext } from '../../../test/support/attributes.ts';
import { FixedRandom } from '../../../test/support/clock.ts';
import { type LiveAnswer, lookupsOf, type RecordingLookup, recordingLookup } from '../../../test/support/lookups.ts';
import { testPorts } from '../../../test/support/ports.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { AdmissionChain } from '../../admission/chain.ts';
import { type AdmissionPlugin, createPlugin } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import { newForbidden } from '../../api/status-error.ts';
import type { ServiceAccount } from '../../ports/lookups.ts';
import { definition, serviceAccount } from './index.ts';
import { informerCache } from './testdata/upstream-cases.ts';

const mountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

/** upstream admission.NewAttributesRecord(obj, nil, Pod, "myns", "myname", pods, ...) by user "tester". */
const podAttributes = (overrides: Partial<Attributes>): Attributes =>
  attributesRecord(overrides.object, {
    uid: 'test-uid',
    namespace: 'myns',
    name: 'myname',
    userInfo: { username: 'tester' },
    ...overrides,
  });

function pluginWith(accounts: RecordingLookup<ServiceAccount>, random = new FixedRandom()): AdmissionPlugin {
  return serviceAccount(testPorts({ lookups: lookupsOf({ serviceAccounts: accounts }), random }));
}

describe('lookups per request', () => {
  it('a cache miss found live: Admit looks up, its closing Validate looks up again, as upstream', async () => {
    const found: ServiceAccount = { metadata: { name: 'builder', namespace: 'myns' } };
    const lookups = recordingLookup(informerCache(''), { liveScript: [found] });
    const admission = pluginWith(lookups);
    const attributes = podAttributes({ object: { spec: { serviceAccountName: 'builder' } } });
    await admission.admit!(attributes, requestContext());
    expect(lookups.calls.live).toEqual(['myns/builder', 'myns/builder']);
    await admission.validate!(attributes, requestContext());
    expect(lookups.calls.live).toHaveLength(3);
  });

  it('a cache hit never reads live, and secrets are never read at all', async () => {
    // lookupsOf throws on any secrets read: the plugin never reads one, even named like the volume.
    const lookups = recordingLookup(informerCache('automount'));
    const attributes = podAttributes({
      object: { spec: { serviceAccountName: 'unset', volumes: [{ name: 'v', secret: { secretName: 'foo' } }] } },
    });
    const admission = pluginWith(lookups);
    await admission.admit!(attributes, requestContext());
    await admission.validate!(attributes, requestContext());
    expect(lookups.calls.live).toEqual([]);
    expect(lookups.calls.cached).toEqual(['myns/unset', 'myns/unset', 'myns/unset']);
  });
});

describe('automount decision: the pod, then the account, then true', () => {
  it.each<{ account: string; pod?: boolean; mounts: boolean }>([
    { account: 'unset', mounts: true },
    { account: 'automount', mounts: true },
    { account: 'no-automount', mounts: false },
    { account: 'unset', pod: false, mounts: false },
    { account: 'automount', pod: false, mounts: false },
    { account: 'no-automount', pod: true, mounts: true },
    { account: 'unset', pod: true, mounts: true },
  ])('account $account, pod $pod → mounted: $mounts', async ({ account, pod, mounts }) => {
    const spec: Pod['spec'] = { serviceAccountName: account, containers: [{ name: 'app' }] };
    if (pod !== undefined) spec.automountServiceAccountToken = pod;
    const attributes = podAttributes({ object: { spec } });
    await pluginWith(recordingLookup(informerCache('automount'))).admit!(attributes, requestContext());
    const after = (attributes.object as Pod).spec!;
    expect(after.volumes?.length ?? 0).toBe(mounts ? 1 : 0);
    expect(after.containers?.[0]?.volumeMounts?.length ?? 0).toBe(mounts ? 1 : 0);
  });
});

describe('the service account name', () => {
  it('reads the deprecated serviceAccount field when serviceAccountName is empty (v1 → internal conversion)', async () => {
    const lookups = recordingLookup(informerCache('automount'));
    const attributes = podAttributes({ object: { spec: { serviceAccount: 'no-automount', containers: [{ name: 'app' }] } } });
    await pluginWith(lookups).admit!(attributes, requestContext());
    expect(lookups.calls.cached[0]).toBe('myns/no-automount');
    // Not defaulted to `default`: the alias names an account.
    expect((attributes.object as Pod).spec).toEqual({ serviceAccount: 'no-automount', containers: [{ name: 'app' }] });
  });

  it('an explicitly empty serviceAccountName is defaulted', async () => {
    const attributes = podAttributes({ object: { spec: { serviceAccountName: '' } } });
    await pluginWith(recordingLookup(informerCache('default-sa'))).admit!(attributes, requestContext());
    expect((attributes.object as Pod).spec?.serviceAccountName).toBe('default');
  });

  it('validating alone (no mutating phase ran): a pod without an account is forbidden', async () => {
    const attributes = podAttributes({ object: { metadata: { name: 'web-1' }, spec: {} }, name: '' });
    const error = await rejectionOf(() => pluginWith(recordingLookup(informerCache('default-sa'))).validate!(attributes, requestContext()));
    expect(error?.status.message).toBe('pods "web-1" is forbidden: no service account specified for pod myns/web-1');
    expect(error?.status.code).toBe(403);
  });

  it('pods/ephemeralcontainers without an account is forbidden the same way', async () => {
    const attributes = podAttributes({
      object: { metadata: { name: 'myname' }, spec: {} },
      operation: 'UPDATE',
      subresource: 'ephemeralcontainers',
    });
    const error = await rejectionOf(() => pluginWith(recordingLookup(informerCache('default-sa'))).validate!(attributes, requestContext()));
    expect(error?.status.message).toBe('pods "myname" is forbidden: no service account specified for pod myns/myname');
  });

  it('pods/ephemeralcontainers with enforcement off admits any secret reference', async () => {
    const attributes = podAttributes({
      object: {
        spec: { serviceAccountName: 'default', ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'other' } }] }] },
      },
      operation: 'UPDATE',
      subresource: 'ephemeralcontainers',
    });
    expect(
      await rejectionOf(() => pluginWith(recordingLookup(informerCache('default-sa'))).validate!(attributes, requestContext())),
    ).toBeUndefined();
  });
});

describe('lookup errors', () => {
  const denied = newForbidden(
    { group: '', resource: 'serviceaccounts' },
    'builder',
    'User "system:apiserver" cannot get resource "serviceaccounts"',
  );
  const message =
    'error looking up service account myns/builder: serviceaccounts "builder" is forbidden: User "system:apiserver" cannot get resource "serviceaccounts"';

  it.each<{
    phase: 'admit' | 'validate';
    operation: 'CREATE' | 'UPDATE';
    subresource: string;
    failure: LiveAnswer<ServiceAccount>;
    expected: object;
  }>([
    // Admit wraps with %w: errors.As finds the Forbidden, NewForbidden returns the wrapper as-is, and
    // kube-apiserver answers a non-status error with 500 and no reason.
    { phase: 'admit', operation: 'CREATE', subresource: '', failure: denied, expected: { status: 'Failure', code: 500, message } },
    {
      phase: 'validate',
      operation: 'UPDATE',
      subresource: 'ephemeralcontainers',
      failure: denied,
      expected: { status: 'Failure', code: 500, message },
    },
    // The create-time Validate wraps with %v: an ordinary 403.
    {
      phase: 'validate',
      operation: 'CREATE',
      subresource: '',
      failure: denied,
      expected: {
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: `pods "myname" is forbidden: ${message}`,
        details: { name: 'myname', group: '', kind: 'pods' },
      },
    },
    {
      phase: 'admit',
      operation: 'CREATE',
      subresource: '',
      failure: new Error('dial tcp 10.0.0.1:443: connect: connection refused'),
      expected: {
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message:
          'pods "myname" is forbidden: error looking up service account myns/builder: dial tcp 10.0.0.1:443: connect: connection refused',
        details: { name: 'myname', group: '', kind: 'pods' },
      },
    },
  ])('$phase $operation $subresource', async ({ phase, operation, subresource, failure, expected }) => {
    const attributes = podAttributes({ object: { spec: { serviceAccountName: 'builder' } }, operation, subresource });
    const admission = pluginWith(recordingLookup(informerCache(''), { liveScript: [failure] }));
    const error = await rejectionOf(() => admission[phase]!(attributes, requestContext()));
    expect(error?.status).toEqual(expected);
  });

  it('NotFound for another name: one attempt, then forbidden', async () => {
    const lookups = recordingLookup(informerCache(''));
    const error = await rejectionOf(() =>
      pluginWith(lookups).admit!(podAttributes({ object: { spec: { serviceAccountName: 'builder' } } }), requestContext()),
    );
    expect(error?.status.message).toBe(
      'pods "myname" is forbidden: error looking up service account myns/builder: serviceaccount "builder" not found',
    );
    expect(lookups.calls.live).toEqual(['myns/builder']);
  });
});

describe('the token volume on the wire', () => {
  it('the exact JSON patch for a fresh pod', async () => {
    const original: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'myname' },
      spec: {
        initContainers: [{ name: 'init' }],
        containers: [{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        ephemeralContainers: [{ name: 'debug' }],
      },
    };
    const attributes = podAttributes({ object: structuredClone(original) });
    await pluginWith(recordingLookup(informerCache('pull-secrets-foo-bar')), new FixedRandom(0, 'b2c4d')).admit!(
      attributes,
      requestContext(),
    );
    const mount = { name: 'kube-api-access-b2c4d', readOnly: true, mountPath };
    const patch = jsonpatch.compare(original, attributes.object!);
    expect(patch).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/spec/serviceAccountName', value: 'default' },
        { op: 'add', path: '/spec/initContainers/0/volumeMounts', value: [mount] },
        { op: 'add', path: '/spec/containers/0/volumeMounts/1', value: mount },
        { op: 'add', path: '/spec/imagePullSecrets', value: [{ name: 'foo' }, { name: 'bar' }] },
        { op: 'add', path: '/spec/volumes', value: [expect.objectContaining({ name: 'kube-api-access-b2c4d' })] },
      ]),
    );
    expect(patch).toHaveLength(5);
    // Ephemeral containers never get the mount.
    expect((attributes.object as Pod).spec?.ephemeralContainers).toEqual([{ name: 'debug' }]);
  });

  it('reuses an existing kube-api-access- volume instead of adding another', async () => {
    const existing = { name: 'kube-api-access-abcde', projected: { sources: [] } };
    const attributes = podAttributes({
      object: { spec: { volumes: [{ name: 'data', emptyDir: {} }, existing], containers: [{ name: 'app' }] } },
    });
    const random = new FixedRandom();
    await pluginWith(recordingLookup(informerCache('default-sa')), random).admit!(attributes, requestContext());
    const spec = (attributes.object as Pod).spec!;
    expect(spec.volumes).toEqual([{ name: 'data', emptyDir: {} }, existing]);
    expect(spec.containers?.[0]?.volumeMounts).toEqual([{ name: 'kube-api-access-abcde', readOnly: true, mountPath }]);
  });

  it('admitting twice equals admitting once (no second volume, no second mount)', async () => {
    const attributes = podAttributes({ object: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } });
    const admission = pluginWith(recordingLookup(informerCache('default-sa')), new FixedRandom(0, 'zzzzz'));
    await admission.admit!(attributes, requestContext());
    const once = structuredClone(attributes.object);
    await admission.admit!(attributes, requestContext());
    expect(attributes.object).toEqual(once);
    expect((attributes.object as Pod).spec?.volumes).toHaveLength(1);
  });
});

describe('enforce-mountable-secrets annotation (Go strconv.ParseBool)', () => {
  it.each([
    ['true', true],
    ['True', true],
    ['TRUE', true],
    ['t', true],
    ['T', true],
    ['1', true],
    ['false', false],
    ['0', false],
    ['yes', false],
    ['on', false],
    ['', false],
    [' true', false],
  ])('%j → enforced: %s', async (value, enforced) => {
    const sa: ServiceAccount = {
      metadata: { name: 'default', namespace: 'myns', annotations: { 'kubernetes.io/enforce-mountable-secrets': value } },
    };
    const lookups = recordingLookup(informerCache(''), { liveScript: [sa] });
    const attributes = podAttributes({ object: { spec: { volumes: [{ name: 'v', secret: { secretName: 'foo' } }] } } });
    const error = await rejectionOf(() => pluginWith(lookups).admit!(attributes, requestContext()));
    expect(error !== undefined).toBe(enforced);
  });
});

describe('in the ordered chain', () => {
  it('mutates in admit and rejects in validate with the chain reporting the plugin', async () => {
    const ports = testPorts({ lookups: lookupsOf({ serviceAccounts: recordingLookup(informerCache('enforcing-sa')) }) });
    const chain = new AdmissionChain([{ plugin: definition.create(ports), mode: 'enforce' }]);
    const ok = podAttributes({ object: { spec: { containers: [{ name: 'app' }] } } });
    expect((await chain.admit(ok, deadlineOf())).rejection).toBeUndefined();
    expect((await chain.validate(ok, deadlineOf())).rejection).toBeUndefined();
    expect((ok.object as Pod).spec?.volumes).toHaveLength(1);

    const bad = podAttributes({
      object: { spec: { serviceAccountName: 'default', containers: [{ name: 'app', envFrom: [{ secretRef: { name: 'db' } }] }] } },
    });
    const outcome = await chain.validate(bad, deadlineOf());
    expect(outcome.rejectedBy).toBe('ServiceAccount');
    expect(outcome.rejection?.message).toBe(
      'pods "myname" is forbidden: container app with envFrom referencing secret.secretName="db" is not allowed because service account default does not reference that secret',
    );
  });

  it('create() fails clearly without the lookups port', () => {
    expect(() =>
      createPlugin(
        definition,
        { ...testPorts({ lookups: lookupsOf({ serviceAccounts: recordingLookup([]) }) }), lookups: undefined },
        'test',
      ),
    ).toThrow('admission plugin ServiceAccount needs a lookups, which the test backend does not provide');
  });
});
