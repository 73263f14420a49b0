// The chain adds a rejection's explanation beside it — warnings and one audit annotation — in
// every mode, and never lets it change the answer.
import { describe, expect, it } from 'vitest';
import { deadlineOf, podAttributes } from '../../test/support/attributes.ts';
import { createExplainer } from '../explain/index.ts';
import { orderedPlugins } from '../plugins/index.ts';
import { AdmissionChain, annotationKey } from './chain.ts';
import { forbidden } from './errors.ts';
import { type Explainer, explained, FactType } from './explanation.ts';
import type { AdmissionPlugin, PluginMode } from './plugin.ts';

const never = deadlineOf();
const message = 'pods "web" is forbidden: service account default/builder was not found, retry after the service account is created';

const rejecting = (name: string, withFacts = true): AdmissionPlugin => ({
  name,
  handles: () => true,
  validate: (attributes) => {
    const error = forbidden(attributes, 'service account default/builder was not found, retry after the service account is created');
    throw withFacts
      ? explained(error, { facts: [{ type: FactType.MissingServiceAccount, namespace: 'default', name: 'builder' }] })
      : error;
  },
});

const chainOf = (mode: PluginMode, plugin = rejecting('ServiceAccount'), explainer: Explainer | null = createExplainer()) =>
  new AdmissionChain([{ plugin, mode }], explainer === null ? {} : { explainer });

describe('explanations in the chain', () => {
  it("enforce: the message is the plugin's own; the warnings and the annotation come beside it", async () => {
    const outcome = await chainOf('enforce').validate(podAttributes(), never);
    expect(outcome.rejection?.message).toBe(message);
    expect(outcome.warnings).toEqual([
      'service account "builder" does not exist in namespace "default": create it, or name one that exists in spec.serviceAccountName',
      'kubectl create serviceaccount builder -n default',
    ]);
    expect(outcome.annotations['ServiceAccount.explanation']).toMatch(
      /^# service account "builder" does not exist[^\n]*\napiVersion: v1\nkind: ServiceAccount\n/,
    );
    expect(outcome.explanations).toEqual([
      {
        plugin: 'ServiceAccount',
        mode: 'enforce',
        explained: expect.objectContaining({ commands: ['kubectl create serviceaccount builder -n default'] }),
      },
    ]);
  });

  it('warn: the rejection as a warning, its explanation after it, and both annotations', async () => {
    const outcome = await chainOf('warn').validate(podAttributes(), never);
    expect(outcome.rejection).toBeUndefined();
    expect(outcome.warnings[0]).toBe(`[ServiceAccount] ${message}`);
    expect(outcome.warnings.slice(1)).toHaveLength(2);
    expect(Object.keys(outcome.annotations).sort()).toEqual(['ServiceAccount.explanation', 'ServiceAccount.warn-rejection']);
  });

  it('audit: the annotations only, no warning', async () => {
    const outcome = await chainOf('audit').validate(podAttributes(), never);
    expect(outcome.warnings).toEqual([]);
    expect(Object.keys(outcome.annotations).sort()).toEqual(['ServiceAccount.audit-rejection', 'ServiceAccount.explanation']);
  });

  it('a chain given no explainer explains nothing: the same rejection, no warnings or annotation', async () => {
    const outcome = await chainOf('enforce', rejecting('ServiceAccount'), null).validate(podAttributes(), never);
    expect(outcome.rejection?.message).toBe(message);
    expect(outcome.warnings).toEqual([]);
    expect(outcome.annotations).toEqual({});
    expect(outcome.explanations).toBeUndefined();
  });

  it('a rejection made after the deadline is answered unexplained', async () => {
    const late: AdmissionPlugin = {
      ...rejecting('ServiceAccount'),
      validate: async (attributes, context) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return rejecting('ServiceAccount').validate!(attributes, context);
      },
    };
    const outcome = await chainOf('enforce', late).validate(podAttributes(), deadlineOf(undefined, performance.now() + 5));
    expect(outcome.rejection?.message).toBe(message);
    expect(outcome.annotations).toEqual({});
    expect(outcome.explanations).toBeUndefined();
  });

  it('a rejection without facts gets no explanation', async () => {
    const outcome = await chainOf('enforce', rejecting('Other', false)).validate(podAttributes(), never);
    expect(outcome.warnings).toEqual([]);
    expect(outcome.annotations).toEqual({});
    expect(outcome.explanations).toBeUndefined();
  });

  it('an explainer that fails changes nothing: the same rejection, no explanation', async () => {
    const broken: Explainer = {
      explain: () => {
        throw new Error('bug');
      },
    };
    const outcome = await chainOf('enforce', rejecting('ServiceAccount'), broken).validate(podAttributes(), never);
    expect(outcome.rejection?.message).toBe(message);
    expect(outcome.rejection?.code).toBe(403);
    expect(outcome.warnings).toEqual([]);
  });
});

describe('the explanation annotation key', () => {
  it.each(orderedPlugins.map((p) => p.name))("%s: a qualified name's name part, as kube-apiserver requires", (name) => {
    const key = annotationKey(name, 'explanation');
    expect(key.length).toBeLessThanOrEqual(63);
    expect(key).toMatch(/^[A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9]$/);
  });
});
