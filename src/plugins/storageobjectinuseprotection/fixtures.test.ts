// Real AdmissionReview requests (test/fixtures/storageobjectinuseprotection) through the plugin:
// the JSON patch the webhook would answer, and the object the API server would end up with.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../ports/logger.ts';
import { systemClock, systemRandom } from '../../ports/clock.ts';
import { definition } from './index.ts';
import { attributesFromRequest, requestContext, type AdmissionRequestJSON } from '../../../test/support/attributes.ts';
import { patchedThroughWebhook } from '../../../test/support/patches.ts';

const fixtures = new URL('../../../test/fixtures/storageobjectinuseprotection/', import.meta.url);

async function loadRequest(file: string): Promise<AdmissionRequestJSON> {
  const review = JSON.parse(await readFile(new URL(file, fixtures), 'utf8')) as { request: AdmissionRequestJSON };
  return review.request;
}

describe('StorageObjectInUseProtection on AdmissionReview fixtures', () => {
  const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: systemRandom });

  it.each([
    { file: 'pvc-create.json', patch: [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/pvc-protection'] }] },
    { file: 'pvc-create-with-finalizers.json', patch: [] },
    { file: 'pv-create.json', patch: [{ op: 'add', path: '/metadata/finalizers/1', value: 'kubernetes.io/pv-protection' }] },
    { file: 'pv-status-update.json', patch: [] },
    { file: 'vac-create.json', patch: [{ op: 'add', path: '/metadata/finalizers', value: ['kubernetes.io/vac-protection'] }] },
    { file: 'statefulset-create.json', patch: [] },
  ])('$file', async ({ file, patch }) => {
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
