// AlwaysPullImages inside the ordered chain (src/admission/chain.ts), fed by AdmissionReview
// fixtures, in enforce and in warn mode.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attributesRecord, deadlineOf } from '../../../test/support/attributes.ts';
import type { Attributes } from '../../admission/attributes.ts';
import { AdmissionChain } from '../../admission/chain.ts';
import { type PluginMode as Mode, PluginMode } from '../../admission/plugin.ts';
import { attributesFrom, decodeReview } from '../../admission/review.ts';
import type { Pod } from '../../api/core.ts';
import { createExplainer } from '../../explain/index.ts';
import { systemClock } from '../../ports/clock.ts';
import { silentLogger } from '../../ports/logger.ts';
import { definition } from './index.ts';

const fixtures = join(import.meta.dirname, '../../../test/fixtures/alwayspullimages');

/** The request of an AdmissionReview fixture, as Attributes: through the webhook's own codec. */
function fixtureAttributes(file: string): Attributes {
  const { request } = decodeReview(JSON.parse(readFileSync(join(fixtures, file), 'utf8')));
  return attributesFrom(request, request.object ?? undefined);
}

function chainWith(mode: Mode): AdmissionChain {
  const plugin = definition.create({ logger: silentLogger, clock: systemClock, random: { intBelow: () => 0, alphanumeric: () => 'a' } });
  return new AdmissionChain([{ plugin, mode }], { explainer: createExplainer() });
}

const deadline = () => deadlineOf();

const expectedRejection =
  '[pods "web-1" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
  'pods "web-1" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
  'pods "web-1" is forbidden: spec.volumes[0].image.pullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"]';

describe('enforce mode', () => {
  it('registers as both mutating and validating', () => {
    const chain = chainWith(PluginMode.Enforce);
    expect(chain.mutatingPlugins).toEqual(['AlwaysPullImages']);
    expect(chain.validatingPlugins).toEqual(['AlwaysPullImages']);
  });

  it('mutates a CREATE so that validation then passes', async () => {
    const chain = chainWith(PluginMode.Enforce);
    const attributes = fixtureAttributes('create-pod.json');
    const admitted = await chain.admit(attributes, deadline());
    expect(admitted).toEqual({ warnings: [], annotations: {} });
    const spec = (attributes.object as Pod).spec!;
    expect([...spec.initContainers!, ...spec.containers!].map((c) => c.imagePullPolicy)).toEqual(['Always', 'Always', 'Always']);
    expect(spec.volumes).toEqual([
      { name: 'models', image: { reference: 'registry.example.com/team-a/models:7', pullPolicy: 'Always' } },
      { name: 'scratch', emptyDir: {} },
    ]);
    expect(await chain.validate(attributes, deadline())).toEqual({ warnings: [], annotations: {} });
  });

  it('rejects an unmutated CREATE with the upstream message', async () => {
    const outcome = await chainWith(PluginMode.Enforce).validate(fixtureAttributes('create-pod.json'), deadline());
    expect(outcome.rejectedBy).toBe('AlwaysPullImages');
    expect(outcome.rejection?.message).toBe(expectedRejection);
    expect(outcome.rejection?.code).toBe(500);
  });

  it('lets an UPDATE that adds no image through untouched in both phases', async () => {
    const chain = chainWith(PluginMode.Enforce);
    const attributes = fixtureAttributes('update-pod-no-new-image.json');
    const before = structuredClone(attributes.object);
    expect(await chain.admit(attributes, deadline())).toEqual({ warnings: [], annotations: {} });
    expect(attributes.object).toEqual(before);
    expect(await chain.validate(attributes, deadline())).toEqual({ warnings: [], annotations: {} });
  });

  it('rejects a body under pods that is not a Pod in the mutating phase', async () => {
    const attributes = attributesRecord({ apiVersion: 'v1', kind: 'Service' });
    const outcome = await chainWith(PluginMode.Enforce).admit(attributes, deadline());
    expect(outcome.rejection?.status).toEqual({
      status: 'Failure',
      code: 400,
      reason: 'BadRequest',
      message: 'Resource was marked with kind Pod but was unable to be converted',
    });
  });
});

describe('warn mode', () => {
  it('admits an unmutated CREATE with a warning and an audit annotation carrying the message', async () => {
    const outcome = await chainWith(PluginMode.Warn).validate(fixtureAttributes('create-pod.json'), deadline());
    expect(outcome.rejection).toBeUndefined();
    // The rejection as a warning, then its explanation: the first field, and who would have set Always.
    expect(outcome.warnings).toEqual([
      `[AlwaysPullImages] ${expectedRejection}`,
      'spec.initContainers[0].imagePullPolicy is "IfNotPresent" (and 2 more), not "Always": every container needs imagePullPolicy: Always (and every image volume pullPolicy: Always)',
      'the mutating webhook sets Always (AlwaysPullImages in /mutate): it did not see this pod, or a later webhook changed the policy back',
    ]);
    expect(outcome.annotations).toEqual({
      'AlwaysPullImages.warn-rejection': expectedRejection,
      'AlwaysPullImages.explanation': expect.stringMatching(/^# spec.initContainers\[0\]/),
    });
  });

  it('still mutates: warn mode changes what a rejection does, not the mutation', async () => {
    const attributes = fixtureAttributes('create-pod.json');
    const outcome = await chainWith(PluginMode.Warn).admit(attributes, deadline());
    expect(outcome).toEqual({ warnings: [], annotations: {} });
    expect((attributes.object as Pod).spec!.containers!.map((c) => c.imagePullPolicy)).toEqual(['Always', 'Always']);
  });

  it('turns the bad-request of a non-Pod body into a warning and leaves the object as it was', async () => {
    const object = { apiVersion: 'v1', kind: 'Service', spec: { ports: [] } };
    const attributes = attributesRecord(object);
    const outcome = await chainWith(PluginMode.Warn).admit(attributes, deadline());
    expect(outcome.rejection).toBeUndefined();
    expect(outcome.warnings).toEqual(['[AlwaysPullImages] Resource was marked with kind Pod but was unable to be converted']);
    expect(attributes.object).toEqual(object);
  });
});
