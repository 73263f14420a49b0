import { describe, expect, it } from 'vitest';
import { namespace, recordingLookup } from '../../test/support/lookups.ts';
import { decodeLabelSelector, type LabelSelector } from '../api/label-selector.ts';
import type { Namespace } from '../ports/lookups.ts';
import { compileExemption, type ExemptionRules, type ExemptionSubject, NamespaceReads } from './exemptions.ts';

function selector(value: unknown): LabelSelector {
  const decoded = decodeLabelSelector(value);
  if ('detail' in decoded) throw new Error(decoded.detail);
  return decoded;
}

function rules(given: Partial<ExemptionRules>): ExemptionRules {
  return { namespaces: [], namespaceSelectors: [], users: [], groups: [], serviceAccounts: [], ...given };
}

function labelled(name: string, labels: Record<string, string>): Namespace {
  return { ...namespace(name), metadata: { name, labels } };
}

const platform = labelled('istio-system', { team: 'platform', 'kubernetes.io/metadata.name': 'istio-system' });
const tenant = labelled('team-a', { team: 'a' });
const cluster = recordingLookup([platform, tenant]);
const reads = () => new NamespaceReads(new AbortController().signal);
const subject = (namespace: string, username: string, groups: string[] = []): ExemptionSubject => ({
  namespace,
  userInfo: { username, groups },
});

describe('compileExemption', () => {
  const everyRule = rules({
    namespaces: ['kube-public'],
    namespaceSelectors: [selector({ matchLabels: { team: 'platform' } })],
    users: ['ci-bot'],
    groups: ['platform-admins'],
    serviceAccounts: ['operators/vendor-operator'],
  });
  it.each([
    ['a user by name', subject('team-a', 'ci-bot'), 'user "ci-bot"'],
    ['a group the user is in', subject('team-a', 'alice', ['system:authenticated', 'platform-admins']), 'group "platform-admins"'],
    [
      'a service account by namespace/name',
      subject('team-a', 'system:serviceaccount:operators:vendor-operator'),
      'serviceAccount "operators/vendor-operator"',
    ],
    ['a namespace by name', subject('kube-public', 'alice'), 'namespace "kube-public"'],
    ['a namespace by its labels', subject('istio-system', 'alice'), 'namespaceSelectors[0] "team=platform" (namespace "istio-system")'],
    ['no rule: another user in another namespace', subject('team-a', 'alice', ['system:authenticated']), undefined],
    ['no rule: another service account of the same namespace', subject('team-a', 'system:serviceaccount:operators:default'), undefined],
    ['no rule: the same name in another namespace', subject('team-a', 'system:serviceaccount:other:vendor-operator'), undefined],
    ['no rule: a user named like the service account', subject('team-a', 'operators/vendor-operator'), undefined],
    ['no rule: a malformed service account username', subject('team-a', 'system:serviceaccount:operators:vendor-operator:x'), undefined],
    ['no rule: a cluster-scoped request has no namespace', subject('', 'alice'), undefined],
  ])('%s', async (_, request, expected) => {
    expect(await compileExemption(everyRule, cluster).match(request, reads())).toBe(expected);
  });

  it('names the first selector that matches, by index', async () => {
    const exemption = compileExemption(
      rules({
        namespaceSelectors: [
          selector({ matchExpressions: [{ key: 'team', operator: 'In', values: ['b', 'c'] }] }),
          selector({
            matchExpressions: [
              { key: 'team', operator: 'NotIn', values: ['platform'] },
              { key: 'legacy', operator: 'DoesNotExist' },
            ],
          }),
        ],
      }),
      cluster,
    );
    expect(await exemption.match(subject('team-a', 'alice'), reads())).toBe(
      'namespaceSelectors[1] "team notin (platform),!legacy" (namespace "team-a")',
    );
    expect(await exemption.match(subject('istio-system', 'alice'), reads())).toBeUndefined();
  });

  it('reads the namespace only when a selector is the only rule left to try', async () => {
    const namespaces = recordingLookup([platform]);
    const exemption = compileExemption(
      rules({ users: ['ci-bot'], namespaceSelectors: [selector({ matchLabels: { team: 'platform' } })] }),
      namespaces,
    );
    expect(await exemption.match(subject('istio-system', 'ci-bot'), reads())).toBe('user "ci-bot"');
    expect(namespaces.calls.cached).toEqual([]);
  });
});

describe('NamespaceReads (fail closed: an unreadable namespace matches no selector)', () => {
  const rule = rules({ namespaceSelectors: [selector({ matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] })] });
  const signal = () => new AbortController().signal;

  it('reads the cache first, then the API server, once per request whichever plugins ask', async () => {
    const namespaces = recordingLookup<Namespace>([], { server: [labelled('fresh', {})] });
    const request = new NamespaceReads(signal());
    for (const exemption of [compileExemption(rule, namespaces), compileExemption(rule, namespaces)])
      expect(await exemption.match(subject('fresh', 'alice'), request)).toContain('namespaceSelectors[0]');
    expect(namespaces.calls).toEqual({ cached: ['/fresh'], live: ['/fresh'] });
    // The next request reads again.
    await compileExemption(rule, namespaces).match(subject('fresh', 'alice'), new NamespaceReads(signal()));
    expect(namespaces.calls.cached).toEqual(['/fresh', '/fresh']);
  });

  it.each([
    ['the namespace does not exist', recordingLookup<Namespace>([])],
    ['the live read fails', recordingLookup<Namespace>([], { liveError: new Error('connection refused') })],
    [
      'the cache throws',
      {
        cached: () => {
          throw new Error('broken');
        },
        live: async () => labelled('gone', {}),
      },
    ],
    ['there is no namespaces lookup', undefined],
  ])('does not exempt when %s', async (_, namespaces) => {
    expect(await compileExemption(rule, namespaces).match(subject('gone', 'alice'), new NamespaceReads(signal()))).toBeUndefined();
  });

  it('does not read at all once the request is aborted', async () => {
    const namespaces = recordingLookup<Namespace>([labelled('gone', {})]);
    const controller = new AbortController();
    controller.abort();
    expect(await compileExemption(rule, namespaces).match(subject('gone', 'alice'), new NamespaceReads(controller.signal))).toBeUndefined();
    expect(namespaces.calls.cached).toEqual([]);
  });

  it('a namespace without labels is read as having none', async () => {
    const namespaces = recordingLookup<Namespace>([namespace('bare')]);
    expect(await compileExemption(rule, namespaces).match(subject('bare', 'alice'), new NamespaceReads(signal()))).toContain(
      'namespaceSelectors[0]',
    );
  });
});
