// Every test of upstream plugin/pkg/admission/serviceaccount/admission_test.go (newest stored
// version), as data rows. Upstream's informer store becomes an in-memory lookup's cache
// (testdata/upstream-cases.ts), its fake clientset an in-memory lookup's live script, and its
// WithReinvocationTesting wrapper admitWithReinvocation below: every admit runs twice and the
// second run must change nothing. Each mutation is also checked through a JSON patch
// (fast-json-patch compare(original, mutated) applied to the original), which is what the webhook
// sends. Upstream only checks `err != nil` or a substring; here each rejection's full Status is
// asserted. No upstream row is skipped. Differences that come from external v1 JSON instead of
// internal Go types are noted at the rows they touch.
import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { attributesRecord, requestContext } from '../../../test/support/attributes.ts';
import { RecordingClock } from '../../../test/support/clock.ts';
import { lookupsOf, recordingLookup } from '../../../test/support/lookups.ts';
import { testPorts } from '../../../test/support/ports.ts';
import { rejectionOf } from '../../../test/support/rejections.ts';
import type { Attributes } from '../../admission/attributes.ts';
import type { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin } from '../../admission/plugin.ts';
import type { Pod } from '../../api/core.ts';
import type { StatusError } from '../../api/status-error.ts';
import type { KubeObject } from '../../api/types.ts';
import type { ResourceLookup, ServiceAccount } from '../../ports/lookups.ts';
import { definition, type ServiceAccountOptions, serviceAccount } from './index.ts';
import { type InformerCache, informerCache } from './testdata/upstream-cases.ts';

const mountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
const mirror = { annotations: { 'kubernetes.io/config.mirror': 'true' } };

/** upstream TokenVolumeSource() in v1 JSON, named as our FixedRandom makes rand.String(5). */
const expectedTokenVolume = {
  name: 'kube-api-access-x7k2q',
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};
const expectedTokenMount = { name: 'kube-api-access-x7k2q', readOnly: true, mountPath };

function plugin(accounts: ResourceLookup<ServiceAccount>, options: ServiceAccountOptions = {}): AdmissionPlugin {
  return serviceAccount(testPorts({ lookups: lookupsOf({ serviceAccounts: accounts }) }), options);
}

/** upstream admission.NewAttributesRecord(obj, nil, Pod, "myns", "myname", pods, ...) by user "tester". */
const podAttributes = (overrides: Partial<Attributes>): Attributes =>
  attributesRecord(overrides.object, {
    uid: 'test-uid',
    namespace: 'myns',
    name: 'myname',
    userInfo: { username: 'tester' },
    ...overrides,
  });

/**
 * upstream admissiontesting.WithReinvocationTesting: admit; if it passed, admit again and require
 * the second run to leave the object as the first did. The first run's change must also survive
 * the trip through a JSON patch.
 */
async function admitWithReinvocation(admission: AdmissionPlugin, attributes: Attributes): Promise<StatusError | undefined> {
  const original = structuredClone(attributes.object);
  const rejection = await rejectionOf(() => admission.admit!(attributes, requestContext()));
  if (rejection) return rejection;
  const afterFirst = structuredClone(attributes.object);
  if (original !== undefined && afterFirst !== undefined) {
    const patch = jsonpatch.compare(original, afterFirst);
    expect(jsonpatch.applyPatch(structuredClone(original), patch).newDocument).toEqual(afterFirst);
  }
  const second = await rejectionOf(() => admission.admit!(attributes, requestContext()));
  expect(second).toBeUndefined();
  expect(attributes.object).toEqual(afterFirst);
  return undefined;
}

function forbiddenStatus(message: string) {
  return {
    status: 'Failure',
    code: 403,
    reason: 'Forbidden',
    message: `pods "myname" is forbidden: ${message}`,
    details: { name: 'myname', group: '', kind: 'pods' },
  };
}

describe('upstream admission_test.go', () => {
  it.each(['DELETE', 'CONNECT'] as const)('TestIgnoresNonCreate: does not handle %s', (operation) => {
    expect(definition.create(testPorts({ lookups: lookupsOf({ serviceAccounts: recordingLookup([]) }) })).handles(operation)).toBe(false);
  });

  it.each(['CREATE', 'UPDATE'] as const)('handles %s (NewHandler(Create, Update))', (operation) => {
    expect(definition.create(testPorts({ lookups: lookupsOf({ serviceAccounts: recordingLookup([]) }) })).handles(operation)).toBe(true);
  });

  it('names itself and needs only the lookups port', () => {
    expect(definition.name).toBe('ServiceAccount');
    expect(definition.needs).toEqual(['lookups']);
  });

  // upstream's non-pod object is a *api.Namespace; on the wire that is a body whose kind is not Pod.
  it.each<{ test: string; object: KubeObject | undefined; resource: string; subresource?: string }>([
    { test: 'TestIgnoresNonPodResource', object: { spec: {} }, resource: 'CustomResource' },
    { test: 'TestIgnoresNilObject', object: undefined, resource: 'pods' },
    { test: 'TestIgnoresNonPodObject', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }, resource: 'pods' },
    { test: 'pods/status is not handled (shouldIgnore)', object: { spec: {} }, resource: 'pods', subresource: 'status' },
    // Bodies that would not decode into a Pod: upstream's type assertion fails the same way.
    { test: 'a spec that is not an object', object: { kind: 'Pod', spec: true } as unknown as KubeObject, resource: 'pods' },
    {
      test: 'containers that are not a list',
      object: { kind: 'Pod', spec: { containers: 'app' } } as unknown as KubeObject,
      resource: 'pods',
    },
    {
      test: 'a container whose mounts are not a list',
      object: { kind: 'Pod', spec: { containers: [{ name: 'a', volumeMounts: 5 }] } } as unknown as KubeObject,
      resource: 'pods',
    },
    {
      test: 'projected sources that are not a list',
      object: { kind: 'Pod', spec: { volumes: [{ name: 'v', projected: { sources: 1 } }] } } as unknown as KubeObject,
      resource: 'pods',
    },
    {
      test: 'a service account name that is not a string',
      object: { kind: 'Pod', spec: { serviceAccountName: ['a'] } } as unknown as KubeObject,
      resource: 'pods',
    },
  ])('$test: admitted untouched, no lookups', async ({ object, resource, subresource }) => {
    const lookups = recordingLookup(informerCache(''));
    const admission = plugin(lookups);
    const attributes = podAttributes({ object: structuredClone(object), resource: { group: '', version: 'v1', resource }, subresource });
    expect(await admitWithReinvocation(admission, attributes)).toBeUndefined();
    expect(await rejectionOf(() => admission.validate!(attributes, requestContext()))).toBeUndefined();
    expect(attributes.object).toEqual(object);
    expect(lookups.calls.cached).toEqual([]);
  });

  it.each<{ test: string; spec: Pod['spec']; rejection?: string }>([
    // A volume with no source at all (upstream VolumeSource{}): nothing to object to.
    { test: 'TestIgnoresMirrorPod', spec: { volumes: [{} as never] } },
    {
      test: 'TestRejectsMirrorPodWithServiceAccount',
      spec: { serviceAccountName: 'default' },
      rejection: 'a mirror pod may not reference service accounts',
    },
    {
      test: 'TestRejectsMirrorPodWithSecretVolumes',
      spec: { volumes: [{ secret: { secretName: 'mysecret' } } as never] },
      rejection: 'a mirror pod may not reference secrets',
    },
    {
      test: 'TestRejectsMirrorPodWithServiceAccountTokenVolumeProjections',
      spec: { volumes: [{ projected: { sources: [{ serviceAccountToken: {} }] } } as never] },
      rejection: 'a mirror pod may not use ServiceAccountToken volume projections',
    },
  ])('$test', async ({ spec, rejection }) => {
    const lookups = recordingLookup(informerCache(''));
    const pod: Pod = { metadata: structuredClone(mirror), spec };
    const attributes = podAttributes({ object: structuredClone(pod) });
    const error = await admitWithReinvocation(plugin(lookups), attributes);
    if (rejection === undefined) {
      expect(error).toBeUndefined();
      // Mirror pods are never mutated: not even the default service account.
      expect(attributes.object).toEqual(pod);
    } else {
      expect(error?.status).toEqual(forbiddenStatus(rejection));
    }
    expect(lookups.calls.cached).toEqual([]);
  });

  // upstream defaults a v1 pod, converts it to internal, admits, converts back and requires v1
  // defaulting to change nothing more. Our pod is v1 JSON throughout: the same property is that
  // the volume already carries every v1 default (defaultMode 420, expirationSeconds, fieldRef
  // apiVersion), which the exact equality below pins.
  it('TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens', async () => {
    const attributes = podAttributes({ object: { spec: { containers: [{} as never] } } });
    expect(await admitWithReinvocation(plugin(recordingLookup(informerCache('default-sa'))), attributes)).toBeUndefined();
    const spec = (attributes.object as Pod).spec!;
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.volumes).toEqual([expectedTokenVolume]);
    expect(spec.containers?.[0]?.volumeMounts).toEqual([expectedTokenMount]);
  });

  it('TestFetchesUncachedServiceAccount', async () => {
    const found: ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'myns' } };
    const lookups = recordingLookup(informerCache(''), { liveScript: [found] });
    const attributes = podAttributes({ object: {} });
    expect(await admitWithReinvocation(plugin(lookups), attributes)).toBeUndefined();
    expect((attributes.object as Pod).spec?.serviceAccountName).toBe('default');
    expect(lookups.calls.live.length).toBeGreaterThan(0);
  });

  it('TestDeniesInvalidServiceAccount', async () => {
    const clock = new RecordingClock();
    const lookups = recordingLookup(informerCache(''));
    const admission = serviceAccount(testPorts({ lookups: lookupsOf({ serviceAccounts: lookups }), clock }));
    const error = await admitWithReinvocation(admission, podAttributes({ object: {} }));
    expect(error?.status).toEqual(forbiddenStatus('error looking up service account myns/default: serviceaccount "default" not found'));
    expect(lookups.calls.live).toHaveLength(10);
    expect(clock.sleeps).toEqual(Array(9).fill(142));
  });

  it.each([
    { test: 'TestAutomountsAPIToken (containers)', field: 'containers' as const },
    { test: 'TestAutomountsAPIToken (init containers)', field: 'initContainers' as const },
  ])('$test', async ({ field }) => {
    const attributes = podAttributes({ object: { spec: { [field]: [{}] } } });
    expect(await admitWithReinvocation(plugin(recordingLookup(informerCache('default-sa'))), attributes)).toBeUndefined();
    const spec = (attributes.object as Pod).spec!;
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.volumes).toEqual([expectedTokenVolume]);
    expect(spec[field]?.[0]?.volumeMounts).toEqual([expectedTokenMount]);
  });

  it.each([
    { test: 'TestRespectsExistingMount (containers)', field: 'containers' as const },
    { test: 'TestRespectsExistingMount (init containers)', field: 'initContainers' as const },
  ])('$test: no volume for a token nobody mounts', async ({ field }) => {
    const customMount = { name: 'my-custom-mount', readOnly: false, mountPath };
    const attributes = podAttributes({ object: { spec: { [field]: [{ volumeMounts: [customMount] }] } } });
    expect(await admitWithReinvocation(plugin(recordingLookup(informerCache('default-sa'))), attributes)).toBeUndefined();
    const spec = (attributes.object as Pod).spec!;
    expect(spec.serviceAccountName).toBe('default');
    expect(spec.volumes).toBeUndefined();
    expect(spec[field]?.[0]?.volumeMounts).toEqual([customMount]);
  });
});

const secretEnv = [{ name: 'env-1', valueFrom: { secretKeyRef: { name: 'foo' } } }];
const secretEnvFrom = [{ secretRef: { name: 'foo' } }];
const podWith = {
  secretVolume: { spec: { volumes: [{ secret: { secretName: 'foo' } }] } },
  containerEnv: { spec: { containers: [{ name: 'container-1', env: secretEnv }] } },
  containerEnvFrom: { spec: { containers: [{ name: 'container-1', envFrom: secretEnvFrom }] } },
  initEnv: { spec: { serviceAccountName: 'default', initContainers: [{ name: 'container-1', env: secretEnv }] } },
  initEnvFrom: { spec: { serviceAccountName: 'default', initContainers: [{ name: 'container-1', envFrom: secretEnvFrom }] } },
  ephemeralEnv: { spec: { serviceAccountName: 'default', ephemeralContainers: [{ name: 'container-2', env: secretEnv }] } },
  ephemeralEnvFrom: { spec: { serviceAccountName: 'default', ephemeralContainers: [{ name: 'container-2', envFrom: secretEnvFrom }] } },
  pullSecretFoo: { spec: { imagePullSecrets: [{ name: 'foo' }] } },
} satisfies Record<string, KubeObject>;

interface SecretRow {
  test: string;
  fixture: string;
  limitSecretReferences: boolean;
  phase: 'admit' | 'validate';
  operation: Operation;
  subresource?: string;
  /** Volumes without names, as upstream builds them: a wire object, not our typed Pod. */
  pod: KubeObject;
  /** A 403 from admission.NewForbidden. */
  forbidden?: string;
  /** A bare Go error, which kube-apiserver answers with 500 and no reason. */
  unknown?: string;
}

const denied = (what: string) => `${what} is not allowed because service account default does not reference that secret`;

describe.each<SecretRow>([
  ...(['secretVolume', 'containerEnv', 'containerEnvFrom', 'initEnv', 'initEnvFrom'] as const).map((key) => ({
    test: `TestAllowsReferencedSecret: ${key} on create`,
    fixture: 'referenced-secret',
    limitSecretReferences: true,
    phase: 'admit' as const,
    operation: 'CREATE' as const,
    pod: podWith[key],
  })),
  ...(['ephemeralEnv', 'ephemeralEnvFrom'] as const).map((key) => ({
    test: `TestAllowsReferencedSecret: ${key} via pods/ephemeralcontainers`,
    fixture: 'referenced-secret',
    limitSecretReferences: true,
    phase: 'validate' as const,
    operation: 'UPDATE' as const,
    subresource: 'ephemeralcontainers',
    pod: podWith[key],
  })),
  {
    test: 'TestRejectsUnreferencedSecretVolumes: secret volume',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'CREATE',
    pod: podWith.secretVolume,
    forbidden: denied('volume with secret.secretName="foo"'),
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: container env',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'CREATE',
    pod: podWith.containerEnv,
    forbidden: denied('container container-1 with envVar env-1 referencing secret.secretName="foo"'),
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: container envFrom',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'CREATE',
    pod: podWith.containerEnvFrom,
    forbidden: denied('container container-1 with envFrom referencing secret.secretName="foo"'),
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: init env, admit on update does nothing',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'UPDATE',
    pod: podWith.initEnv,
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: init env, validate on create',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'validate',
    operation: 'CREATE',
    pod: podWith.initEnv,
    forbidden: denied('init container container-1 with envVar env-1 referencing secret.secretName="foo"'),
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: init envFrom, admit on update does nothing',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'UPDATE',
    pod: podWith.initEnvFrom,
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: init envFrom, validate on create',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'validate',
    operation: 'CREATE',
    pod: podWith.initEnvFrom,
    forbidden: denied('init container container-1 with envFrom referencing secret.secretName="foo"'),
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: ephemeral env, admit on update does nothing',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'UPDATE',
    pod: podWith.ephemeralEnv,
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: ephemeral env via pods/ephemeralcontainers',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'validate',
    operation: 'UPDATE',
    subresource: 'ephemeralcontainers',
    pod: podWith.ephemeralEnv,
    unknown: denied('ephemeral container container-2 with envVar env-1 referencing secret.secretName="foo"'),
  },
  {
    test: 'TestRejectsUnreferencedSecretVolumes: ephemeral envFrom via pods/ephemeralcontainers',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'validate',
    operation: 'UPDATE',
    subresource: 'ephemeralcontainers',
    pod: podWith.ephemeralEnvFrom,
    unknown: denied('ephemeral container container-2 with envFrom referencing secret.secretName="foo"'),
  },
  {
    test: 'TestAllowUnreferencedSecretVolumesForPermissiveSAs (the annotation enforces)',
    fixture: 'enforcing-sa',
    limitSecretReferences: false,
    phase: 'admit',
    operation: 'CREATE',
    pod: podWith.secretVolume,
    forbidden: denied('volume with secret.secretName="foo"'),
  },
  {
    test: 'TestAllowsReferencedImagePullSecrets',
    fixture: 'pull-secret-foo',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'CREATE',
    pod: podWith.pullSecretFoo,
  },
  {
    test: 'TestRejectsUnreferencedImagePullSecrets',
    fixture: 'default-sa',
    limitSecretReferences: true,
    phase: 'admit',
    operation: 'CREATE',
    pod: podWith.pullSecretFoo,
    forbidden: 'imagePullSecrets[0].name="foo" is not allowed because service account default does not reference that imagePullSecret',
  },
])('$test', (row) => {
  it((row.forbidden ?? row.unknown) ? "is rejected with upstream's message" : 'is admitted', async () => {
    const admission = plugin(recordingLookup(informerCache(row.fixture as InformerCache)), {
      limitSecretReferences: row.limitSecretReferences,
    });
    const attributes = podAttributes({ object: structuredClone(row.pod), operation: row.operation, subresource: row.subresource });
    const error =
      row.phase === 'admit'
        ? await admitWithReinvocation(admission, attributes)
        : await rejectionOf(() => admission.validate!(attributes, requestContext()));
    if (row.forbidden) expect(error?.status).toEqual(forbiddenStatus(row.forbidden));
    else if (row.unknown) expect(error?.status).toEqual({ status: 'Failure', code: 500, message: row.unknown });
    else expect(error).toBeUndefined();
    // Nothing but creates is ever mutated.
    if (row.operation !== 'CREATE') expect(attributes.object).toEqual(row.pod);
  });
});

describe('upstream admission_test.go: image pull secrets', () => {
  it('TestDoNotAddImagePullSecrets: a pod that has pull secrets keeps its own', async () => {
    const attributes = podAttributes({ object: structuredClone(podWith.pullSecretFoo) });
    const admission = plugin(recordingLookup(informerCache('pull-secrets-foo-bar')), { limitSecretReferences: true });
    expect(await admitWithReinvocation(admission, attributes)).toBeUndefined();
    expect((attributes.object as Pod).spec?.imagePullSecrets).toEqual([{ name: 'foo' }]);
  });

  it('TestAddImagePullSecrets: copied from the account, and a copy', async () => {
    // An informer cache hands out the same object every time; the plugin must not alias it.
    const sa: ServiceAccount = { metadata: { name: 'default', namespace: 'myns' }, imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] };
    const original = structuredClone(sa);
    const sharedCache: ResourceLookup<ServiceAccount> = {
      cached: (ns, name) => (ns === 'myns' && name === 'default' ? sa : undefined),
      live: async () => undefined,
    };
    const attributes = podAttributes({ object: {} });
    expect(await admitWithReinvocation(plugin(sharedCache, { limitSecretReferences: true }), attributes)).toBeUndefined();
    const pullSecrets = (attributes.object as Pod).spec!.imagePullSecrets!;
    expect(pullSecrets).toEqual([{ name: 'foo' }, { name: 'bar' }]);
    pullSecrets[1] = { name: 'baz' };
    expect(sa).toEqual(original);
  });
});
