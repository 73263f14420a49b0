// Real AdmissionReview requests (test/fixtures/storageobjectinuseprotection) through the plugin:
// the JSON patch the webhook would answer, and the object the API server would end up with, on a
// cluster of 1.34 (VolumeAttributesClass on by default) and of 1.33 (off).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type AdmissionRequestJSON, attributesFromRequest, requestContext } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';
import { testPorts } from '../../../test/support/ports.ts';
import { featureGatesAt } from '../../ports/feature-gates.ts';
import { definition } from './index.ts';

const fixtures = new URL('../../../test/fixtures/storageobjectinuseprotection/', import.meta.url);

async function loadRequest(file: string): Promise<AdmissionRequestJSON> {
  const review = JSON.parse(await readFile(new URL(file, fixtures), 'utf8')) as { request: AdmissionRequestJSON };
  return review.request;
}

describe('StorageObjectInUseProtection on AdmissionReview fixtures', () => {
  const plugins = {
    '1.34': definition.create(testPorts({ featureGates: featureGatesAt({ major: 1, minor: 34 }) })),
    '1.33': definition.create(testPorts({ featureGates: featureGatesAt({ major: 1, minor: 33 }) })),
  };

  it.each([
    {
      file: 'pvc-create.json',
      patch: [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/pvc-protection'] }],
      version: '1.34' as const,
    },
    { file: 'pvc-create-with-finalizers.json', patch: [], version: '1.34' as const },
    {
      file: 'pv-create.json',
      patch: [{ op: 'add', path: '/metadata/finalizers/1', value: 'kubernetes.io/pv-protection' }],
      version: '1.34' as const,
    },
    { file: 'pv-status-update.json', patch: [], version: '1.34' as const },
    {
      file: 'vac-create.json',
      patch: [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/vac-protection'] }],
      version: '1.34' as const,
    },
    { file: 'vac-create.json', patch: [], version: '1.33' as const },
    {
      file: 'pvc-create.json',
      patch: [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/pvc-protection'] }],
      version: '1.33' as const,
    },
    { file: 'statefulset-create.json', patch: [], version: '1.34' as const },
  ])('$file (Kubernetes $version)', async ({ file, patch, version }) => {
    const plugin = plugins[version];
    const request = await loadRequest(file);
    const attributes = attributesFromRequest(request);
    for (let invocation = 0; invocation < 2; invocation++) {
      if (plugin.handles(attributes.operation)) await plugin.admit!(attributes, requestContext());
      const webhook = patchedThroughWebhook(request.object, attributes.object);
      expect(webhook.patch).toEqual(patch);
      expect(webhook.result).toEqual(attributes.object);
    }
  });
});
