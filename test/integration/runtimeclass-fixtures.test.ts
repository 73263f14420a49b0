// Real AdmissionReview requests (test/fixtures/runtimeclass) against a cluster-state file loaded
// by the local backend: the plugin's mutation or rejection, the mutating webhook's answer (its
// patch applied to the request's object must give the plugin's mutation), reinvocation, then the
// validating webhook on what the API server would hold after the patch.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { loadClusterStateFile } from '../../src/adapters/local/cluster-state.ts';
import { createLocalLookups } from '../../src/adapters/local/lookups.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { handleAdmission } from '../../src/admission/handler.ts';
import type { AdmissionRequest } from '../../src/admission/review.ts';
import { isStatusError } from '../../src/api/status-error.ts';
import { definition } from '../../src/plugins/runtimeclass/index.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { type AdmissionRequestJSON, attributesFromRequest, deadlineOf, requestContext } from '../support/attributes.ts';

const fixtures = new URL('../fixtures/runtimeclass/', import.meta.url);

async function loadRequest(file: string): Promise<AdmissionRequestJSON> {
  const review = JSON.parse(await readFile(new URL(file, fixtures), 'utf8')) as { request: AdmissionRequestJSON };
  return review.request;
}

async function outcome(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    if (!isStatusError(error)) throw error;
    return error.message;
  }
}

const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);

describe('RuntimeClass on AdmissionReview fixtures', async () => {
  const state = await loadClusterStateFile(fileURLToPath(new URL('cluster-state.yaml', fixtures)));
  const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: systemRandom, lookups: createLocalLookups(state) });

  it.each<{ file: string; admitError?: string; patch?: unknown[]; validateError?: string }>([
    {
      file: 'pod-kata.json',
      patch: [
        { op: 'add', path: '/spec/nodeSelector/katacontainers.io~1kata-runtime', value: 'true' },
        { op: 'add', path: '/spec/overhead', value: { cpu: '250m', memory: '160Mi' } },
        {
          op: 'add',
          path: '/spec/tolerations/2',
          value: { key: 'katacontainers.io/kata-runtime', operator: 'Exists', effect: 'NoSchedule' },
        },
      ],
    },
    // The pod's effect-less toleration already covers the RuntimeClass's NoSchedule one.
    {
      file: 'pod-gvisor-covered-toleration.json',
      patch: [{ op: 'add', path: '/spec/nodeSelector', value: { 'sandbox.gke.io/runtime': 'gvisor' } }],
    },
    {
      file: 'pod-gvisor-conflict.json',
      admitError:
        'pods "sandboxed-elsewhere" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.gke.io/runtime] = gvisor; pod.spec.nodeSelector[sandbox.gke.io/runtime] = runc',
    },
    {
      file: 'pod-kata-overhead-mismatch.json',
      admitError: `pods "greedy" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    },
    {
      file: 'pod-overhead-without-runtimeclass.json',
      patch: [],
      validateError: 'pods "sneaky" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    },
    { file: 'pod-unknown-runtimeclass.json', admitError: 'pods "lost" is forbidden: pod rejected: RuntimeClass "wasmtime" not found' },
    { file: 'pod-runc.json', patch: [] },
    { file: 'pod-status-update.json', patch: [] },
  ])('$file', async ({ file, admitError, patch, validateError }) => {
    const request = await loadRequest(file);
    const attributes = attributesFromRequest(request);
    const handled = plugin.handles(attributes.operation);

    const admitted = await outcome(async () => {
      if (handled) await plugin.admit!(attributes, requestContext());
    });
    expect(admitted).toBe(admitError);

    const chain = new AdmissionChain([{ plugin, mode: 'enforce' }]);
    const { response } = await handleAdmission(
      chain,
      'admit',
      request as unknown as AdmissionRequest,
      deadlineOf(AbortSignal.timeout(10_000)),
    );
    if (admitError !== undefined) {
      expect(response).toMatchObject({ uid: request.uid, allowed: false, status: { message: admitError } });
      return;
    }
    // No patch at all when nothing changed.
    if (patch?.length === 0) expect(response).toEqual({ uid: request.uid, allowed: true });
    const sent = response.patch === undefined ? [] : (JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as Operation[]);
    expect([...sent].sort(byPath)).toEqual(patch);
    const patched = fastJsonPatch.applyPatch(structuredClone(request.object), sent, true, false).newDocument;
    expect(patched).toEqual(attributes.object);

    const once = structuredClone(attributes.object);
    if (handled) await plugin.admit!(attributes, requestContext());
    expect(attributes.object).toEqual(once);

    const stored = attributesFromRequest({ ...request, object: patched as AdmissionRequestJSON['object'] });
    const validated = await outcome(async () => {
      if (handled) await plugin.validate!(stored, requestContext());
    });
    expect(validated).toBe(validateError);
  });
});
