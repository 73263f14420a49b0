// The chain with per-plugin exemptions: an exempt request skips that plugin only, in both phases and
// whatever its mode, and the outcome says which rule exempted it.
import { describe, expect, it } from 'vitest';
import { deadlineOf, podAttributes } from '../../test/support/attributes.ts';
import { namespace, recordingLookup } from '../../test/support/lookups.ts';
import { recordingPlugin } from '../../test/support/recording-plugin.ts';
import { decodeLabelSelector, type LabelSelector } from '../api/label-selector.ts';
import type { Namespace, ResourceLookup } from '../ports/lookups.ts';
import { AdmissionChain, type ChainEntry } from './chain.ts';
import { forbidden } from './errors.ts';
import { compileExemption, type ExemptionRules } from './exemptions.ts';
import { handleAdmission } from './handler.ts';
import type { PluginMode } from './plugin.ts';
import type { AdmissionRequest } from './review.ts';

const never = deadlineOf();

function exemption(given: Partial<ExemptionRules>, namespaces?: ResourceLookup<Namespace>) {
  return compileExemption({ namespaces: [], namespaceSelectors: [], users: [], groups: [], serviceAccounts: [], ...given }, namespaces);
}

function selector(value: unknown): LabelSelector {
  const decoded = decodeLabelSelector(value);
  if ('detail' in decoded) throw new Error(decoded.detail);
  return decoded;
}

/** A plugin that labels the object in admit and rejects in validate, recording both. */
function rejecting(name: string, log: string[]) {
  return recordingPlugin({
    name,
    log,
    mutate: (a) => {
      a.object!.metadata!.labels = { ...a.object!.metadata!.labels, [name]: 'set' };
    },
    check: (a) => {
      throw forbidden(a, `${name} says no`);
    },
  });
}

const exemptDefault = exemption({ namespaces: ['default'] });

describe('AdmissionChain with exemptions', () => {
  it.each(['enforce', 'warn', 'audit'] as PluginMode[])(
    'skips the exempt plugin in both phases (%s), and runs the others',
    async (mode) => {
      const log: string[] = [];
      const chain = new AdmissionChain([
        { mode, plugin: rejecting('A', log), exemption: exemptDefault },
        { mode: 'audit', plugin: rejecting('B', log) },
        { mode, plugin: rejecting('C', log), exemption: exemption({ namespaces: ['elsewhere'] }) },
      ]);
      const attributes = podAttributes();
      const admitted = await chain.admit(attributes, never);
      expect(attributes.object!.metadata!.labels).toEqual({ B: 'set', C: 'set' });
      const validated = await chain.validate(podAttributes(), never);
      expect(log).toEqual(['B:admit', 'C:admit', 'B:validate', 'C:validate']);
      for (const outcome of [admitted, validated]) {
        expect(outcome.exempted).toEqual([{ plugin: 'A', rule: 'namespace "default"' }]);
        expect(outcome.annotations['A.exempted']).toBe('namespace "default"');
      }
      // A skipped plugin leaves no rejection, warning or annotation of its own.
      expect(validated.annotations['A.audit-rejection']).toBeUndefined();
      expect(validated.annotations['A.warn-rejection']).toBeUndefined();
      expect(validated.warnings.some((w) => w.includes('A says no'))).toBe(false);
      expect(validated.nonEnforced?.map((n) => n.plugin)).toEqual(mode === 'enforce' ? ['B'] : ['B', 'C']);
      expect(validated.rejectedBy).toBe(mode === 'enforce' ? 'C' : undefined);
    },
  );

  it('an exempt request is admitted where the enforcing plugin would deny it; the same request outside the rule is denied', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([{ mode: 'enforce', plugin: rejecting('A', log), exemption: exemption({ users: ['ci-bot'] }) }]);
    const exempt = await chain.validate(podAttributes({ userInfo: { username: 'ci-bot' } }), never);
    expect(exempt.rejection).toBeUndefined();
    expect(exempt.annotations).toEqual({ 'A.exempted': 'user "ci-bot"' });
    const other = await chain.validate(podAttributes(), never);
    expect(other.rejection?.message).toContain('A says no');
    expect(other.exempted).toBeUndefined();
    expect(log).toEqual(['A:validate']);
  });

  it('says nothing for a plugin that does not handle the operation, exempt or not', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      { mode: 'enforce', plugin: recordingPlugin({ name: 'A', log, operations: ['UPDATE'] }), exemption: exemptDefault },
    ]);
    const outcome = await chain.admit(podAttributes(), never);
    expect(outcome.exempted).toBeUndefined();
    expect(outcome.annotations).toEqual({});
    expect(log).toEqual([]);
  });

  describe('namespace label rules', () => {
    const labelled = (name: string, labels: Record<string, string>): Namespace => ({ ...namespace(name), metadata: { name, labels } });
    const platform = (namespaces?: ResourceLookup<Namespace>) =>
      exemption({ namespaceSelectors: [selector({ matchLabels: { team: 'platform' } })] }, namespaces);
    const entriesOf = (log: string[], namespaces: ResourceLookup<Namespace>): ChainEntry[] => [
      { mode: 'enforce', plugin: recordingPlugin({ name: 'A', log }), exemption: platform(namespaces) },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'B', log }), exemption: platform(namespaces) },
      { mode: 'enforce', plugin: recordingPlugin({ name: 'C', log }) },
    ];
    const chainOf = (log: string[], namespaces: ResourceLookup<Namespace>) => new AdmissionChain(entriesOf(log, namespaces));

    it('reads the namespace once per phase, however many plugins ask', async () => {
      const log: string[] = [];
      const namespaces = recordingLookup([labelled('default', { team: 'platform' })]);
      const outcome = await chainOf(log, namespaces).admit(podAttributes(), never);
      expect(log).toEqual(['C:admit']);
      expect(outcome.exempted?.map((e) => e.plugin)).toEqual(['A', 'B']);
      expect(outcome.annotations['A.exempted']).toBe('namespaceSelectors[0] "team=platform" (namespace "default")');
      expect(namespaces.calls.cached).toEqual(['/default']);
    });

    it.each([
      ['the namespace has other labels', recordingLookup([labelled('default', { team: 'a' })])],
      ['the namespace does not exist', recordingLookup<Namespace>([])],
      ['the namespace cannot be read', recordingLookup<Namespace>([], { liveError: new Error('connection refused') })],
    ])('runs the plugins when %s (fail closed)', async (_, namespaces) => {
      const log: string[] = [];
      const outcome = await chainOf(log, namespaces).admit(podAttributes(), never);
      expect(log).toEqual(['A:admit', 'B:admit', 'C:admit']);
      expect(outcome.exempted).toBeUndefined();
    });

    it('runs the plugins for a cluster-scoped object, never reading a namespace', async () => {
      const log: string[] = [];
      const namespaces = recordingLookup([labelled('default', { team: 'platform' })]);
      await chainOf(log, namespaces).validate(podAttributes({ namespace: '' }), never);
      expect(log).toEqual(['A:validate', 'B:validate', 'C:validate']);
      expect(namespaces.calls).toEqual({ cached: [], live: [] });
    });

    it('an entry taken out of its chain decides as the chain does (each plugin alone, as audit runs them)', async () => {
      const log: string[] = [];
      const namespaces = recordingLookup([labelled('default', { team: 'platform' })]);
      for (const entry of entriesOf(log, namespaces)) await new AdmissionChain([entry]).admit(podAttributes(), never);
      expect(log).toEqual(['C:admit']);
    });

    it('runs the plugins when the exemption has no namespaces lookup', async () => {
      const log: string[] = [];
      const chain = new AdmissionChain([{ mode: 'enforce', plugin: recordingPlugin({ name: 'A', log }), exemption: platform() }]);
      await chain.admit(podAttributes(), never);
      expect(log).toEqual(['A:admit']);
    });
  });

  it("puts the rule in the response's audit annotations, and sends no patch for the exempt mutating plugin", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([{ mode: 'enforce', plugin: rejecting('A', log), exemption: exemptDefault }]);
    const request = {
      uid: 'u1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      name: 'web',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' } },
    } as unknown as AdmissionRequest;
    for (const phase of ['admit', 'validate'] as const) {
      const { response } = await handleAdmission(chain, phase, request, never);
      expect(response.allowed).toBe(true);
      expect(response.patch).toBeUndefined();
      expect(response.auditAnnotations).toEqual({ 'A.exempted': 'namespace "default"' });
    }
    expect(log).toEqual([]);
  });
});
