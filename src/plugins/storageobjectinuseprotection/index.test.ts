// Upstream TestAdmit (admission_test.go), every row (testdata/upstream-cases.ts), plus the edges
// upstream's code takes but its table does not: subresources, other resources, other operations,
// bodies of the wrong type, finalizer scans among other finalizers, reinvocation, and the feature
// gate asked only for VolumeAttributesClasses.
//
// Upstream's rows each set the VolumeAttributesClass gate (off by emulating 1.35, where it is not
// yet locked on); here each row's plugin is built on feature gates that answer the same. The older
// "disabled feature -> no finalizer" rows for PVCs and PVs went upstream with the
// StorageObjectInUseProtection gate itself (GA in 1.11, removed in 1.25): nothing left to port.
import { describe, expect, it } from 'vitest';
import { requestContext } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { testPorts } from '../../../test/support/ports.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { allOperations, Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin } from '../../admission/plugin.ts';
import { Feature } from '../../api/feature-gates.ts';
import type { GroupVersionResource, KubeObject } from '../../api/types.ts';
import type { FeatureGates } from '../../ports/feature-gates.ts';
import { definition, pluginName } from './index.ts';
import { pvcProtectionFinalizer, pvProtectionFinalizer } from './protected-resources.ts';
import { admitCases, claim, pv, pvcs, pvs, vac, vacs, withFinalizers } from './testdata/upstream-cases.ts';

/** Feature gates with VolumeAttributesClass as given, counting how often they are asked. */
function vacGate(enabled: boolean): FeatureGates & { asked: Feature[] } {
  const asked: Feature[] = [];
  return {
    asked,
    enabled(feature) {
      asked.push(feature);
      return feature === Feature.VolumeAttributesClass && enabled;
    },
  };
}

const pluginWith = (gates: FeatureGates): AdmissionPlugin => definition.create(testPorts({ featureGates: gates }));
const plugin = pluginWith(vacGate(true));

function attributes(resource: GroupVersionResource, object: unknown, overrides: Partial<Attributes> = {}): Attributes {
  const namespace = (object as KubeObject | undefined)?.metadata?.namespace ?? '';
  return {
    uid: 'uid',
    operation: Operation.Create,
    kind: { group: resource.group, version: resource.version, kind: '' },
    resource,
    subresource: '',
    namespace,
    name: 'foo',
    object: structuredClone(object) as KubeObject,
    oldObject: structuredClone(object) as KubeObject,
    userInfo: {},
    dryRun: false,
    options: {},
    ...overrides,
  };
}

async function admit(attrs: Attributes, by: AdmissionPlugin = plugin): Promise<void> {
  if (by.handles(attrs.operation)) await by.admit!(attrs, requestContext());
}

/** Admits once, checks the webhook's patched view, then reinvokes and checks nothing more changes. */
async function expectAdmitted(attrs: Attributes, expected: unknown, by: AdmissionPlugin = plugin): Promise<void> {
  const original = structuredClone(attrs.object);
  await admit(attrs, by);
  expect(attrs.object).toEqual(expected);
  const { patch, result } = patchedThroughWebhook(original, attrs.object);
  expect(result).toEqual(expected);
  if (JSON.stringify(original) === JSON.stringify(expected)) expect(patch).toEqual([]);
  const once = structuredClone(attrs.object);
  await admit(attrs, by);
  expect(attrs.object).toEqual(once);
}

describe(pluginName, () => {
  describe('upstream TestAdmit', () => {
    it.each(admitCases)('$name', async ({ resource, object, expected, vacFeatureGate }) => {
      const attrs = attributes(resource, object);
      await expectAdmitted(attrs, expected, pluginWith(vacGate(vacFeatureGate)));
      // Upstream also checks the old object is left alone.
      expect(attrs.oldObject).toEqual(object);
    });
  });

  describe('the VolumeAttributesClass feature gate', () => {
    it.each([
      { name: 'persistentvolumeclaims', resource: pvcs, object: claim, finalizer: pvcProtectionFinalizer },
      { name: 'persistentvolumes', resource: pvs, object: pv, finalizer: pvProtectionFinalizer },
    ])('is never asked for $name, which are protected whatever it says', async ({ resource, object, finalizer }) => {
      // Gates that cannot answer (a cluster whose version is not known yet) do not hold these up.
      const unanswerable: FeatureGates = {
        enabled: () => {
          throw new Error('the cluster version is not known yet');
        },
      };
      await expectAdmitted(attributes(resource, object), withFinalizers(object, [finalizer]), pluginWith(unanswerable));
    });

    it('is asked per VolumeAttributesClass request, not once at start-up', async () => {
      const gates = vacGate(true);
      const asking = pluginWith(gates);
      expect(gates.asked).toEqual([]);
      await admit(attributes(vacs, vac), asking);
      await admit(attributes(vacs, vac), asking);
      expect(gates.asked).toEqual([Feature.VolumeAttributesClass, Feature.VolumeAttributesClass]);
    });

    it('fails the request when the gates cannot answer, rather than guess', async () => {
      const unanswerable: FeatureGates = {
        enabled: () => {
          throw new Error('the cluster version is not known yet');
        },
      };
      await expect(admit(attributes(vacs, vac), pluginWith(unanswerable))).rejects.toThrow('the cluster version is not known yet');
    });
  });

  describe('beyond the upstream table', () => {
    it('appends after existing finalizers and keeps their order', async () => {
      const object = withFinalizers(claim, ['example.com/a', 'example.com/b']);
      await expectAdmitted(attributes(pvcs, object), withFinalizers(claim, ['example.com/a', 'example.com/b', pvcProtectionFinalizer]));
    });

    it('finds the finalizer anywhere in the list (scan first, never a duplicate)', async () => {
      const object = withFinalizers(pv, ['example.com/a', pvProtectionFinalizer, 'example.com/b']);
      await expectAdmitted(attributes(pvs, object), object);
    });

    it('matches on the exact finalizer, not a different protection', async () => {
      const object = withFinalizers(pv, [pvcProtectionFinalizer]);
      await expectAdmitted(attributes(pvs, object), withFinalizers(pv, [pvcProtectionFinalizer, pvProtectionFinalizer]));
    });

    it('creates metadata when the body has none', async () => {
      await expectAdmitted(attributes(pvs, { kind: 'PersistentVolume' }), {
        kind: 'PersistentVolume',
        metadata: { finalizers: [pvProtectionFinalizer] },
      });
    });

    it.each([
      { name: 'pvc status', resource: pvcs, object: claim, subresource: 'status' },
      { name: 'pv status', resource: pvs, object: pv, subresource: 'status' },
      { name: 'vac (any subresource)', resource: vacs, object: vac, subresource: 'status' },
    ])('leaves subresource requests alone: $name', async ({ resource, object, subresource }) => {
      await expectAdmitted(attributes(resource, object, { subresource }), object);
    });

    it.each([
      { name: 'pods', resource: { group: '', version: 'v1', resource: 'pods' }, object: { kind: 'Pod', metadata: { name: 'p' } } },
      {
        name: 'storageclasses',
        resource: { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' },
        object: { kind: 'StorageClass', metadata: { name: 's' } },
      },
      {
        name: 'persistentvolumeclaims in another group',
        resource: { group: 'example.com', version: 'v1', resource: 'persistentvolumeclaims' },
        object: claim,
      },
      {
        name: 'volumeattributesclasses in the core group',
        resource: { group: '', version: 'v1', resource: 'volumeattributesclasses' },
        object: vac,
      },
    ])('leaves other resources alone: $name', async ({ resource, object }) => {
      await expectAdmitted(attributes(resource, object), object);
    });

    it.each([
      { name: 'a body of another kind', object: { kind: 'Pod', metadata: { name: 'p' } } },
      { name: 'no body', object: undefined },
      { name: 'an array body', object: [] },
      { name: 'metadata that is not an object', object: { kind: 'PersistentVolumeClaim', metadata: 'x' } },
      { name: 'finalizers that are not a list', object: { kind: 'PersistentVolumeClaim', metadata: { finalizers: 'x' } } },
    ])('lets a body of the wrong type through untouched, as upstream does: $name', async ({ object }) => {
      const attrs = attributes(pvcs, object);
      await admit(attrs);
      expect(attrs.object).toEqual(object);
    });

    it('handles CREATE only', () => {
      expect(allOperations.filter((op) => plugin.handles(op))).toEqual([Operation.Create]);
    });

    it('is mutating only and needs the feature gates alone', () => {
      expect(plugin.validate).toBeUndefined();
      expect(definition.needs).toEqual(['featureGates']);
      expect(definition.name).toBe('StorageObjectInUseProtection');
    });
  });
});
