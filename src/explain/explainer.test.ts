import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type AuthorizationFact, type DenialFact, FactType } from '../admission/explanation.ts';
import type { AuthorizationAttributes, AuthorizationResult } from '../ports/authorizer.ts';
import { createExplainer, explanationText } from './explainer.ts';
import { maxAnnotationBytes, maxWarningRunes, maxWarningsPerExplanation } from './limits.ts';

const context = { mutatingPlugins: ['AlwaysPullImages'] };
const explain = (...facts: DenialFact[]) => createExplainer().explain({ facts }, context);
const question = (name: string, username = 'demo-user'): AuthorizationAttributes => ({
  user: { username, groups: ['system:authenticated'] },
  resourceAttributes: {
    verb: 'update',
    namespace: 'team-a',
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    subresource: 'finalizers',
    name,
  },
});
const fact = (attributes: AuthorizationAttributes, answer: AuthorizationResult): AuthorizationFact => ({
  type: FactType.Authorization,
  attributes,
  answer,
});
const noOpinion: AuthorizationResult = { decision: 'no-opinion', reason: '' };

describe('authorization facts', () => {
  it("a missing permission: the issue's sentence, the two commands, and the Role and RoleBinding as YAML", () => {
    const explained = explain(fact(question('web'), noOpinion));
    expect(explained.warnings).toEqual([
      'user "demo-user" may not update deployments/finalizers (apps) "web" in namespace "team-a"',
      'kubectl create role update-deployments-finalizers-web -n team-a --verb=update --resource=deployments.apps/finalizers --resource-name=web',
      'kubectl create rolebinding update-deployments-finalizers-web-demo-user -n team-a --role=update-deployments-finalizers-web --user=demo-user',
    ]);
    const documents = parseAllDocuments(explained.text).map((d) => d.toJS());
    expect(documents).toEqual(explained.objects);
    expect(explained.text.startsWith('# user "demo-user" may not update deployments/finalizers (apps) "web" in namespace "team-a"\n')).toBe(
      true,
    );
  });

  it('looks up at most four closest grants, found or not', () => {
    const asked: string[] = [];
    const grants = { closestGrant: (attributes: AuthorizationAttributes) => void asked.push(attributes.resourceAttributes?.name ?? '') };
    createExplainer({ grants }).explain({ facts: ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => fact(question(name), noOpinion)) }, context);
    expect(asked).toEqual(['a', 'b', 'c', 'd']);
  });

  it('an authorizer error is explained as an error, with no Role suggested', () => {
    const tooMany = 'too many SubjectAccessReviews for one admission request (more than 100)';
    const explained = explain(fact(question('rc-100'), { decision: 'no-opinion', reason: '', error: tooMany }));
    expect(explained.objects).toEqual([]);
    expect(explained.commands).toEqual([]);
    expect(explained.warnings).toEqual([
      `the authorizer could not answer whether user "demo-user" may update deployments/finalizers (apps) "rc-100" in namespace "team-a": ${tooMany}; no Role is suggested for an unanswered question`,
    ]);
    expect(explained.text).not.toContain('kind:');
  });

  it('an explicit deny is named as one, and no Role is suggested (RBAC grants cannot lift it)', () => {
    const explained = explain(fact(question('web'), { decision: 'deny', reason: 'tenants may not finalize' }));
    expect(explained.objects).toEqual([]);
    expect(explained.warnings[0]).toBe(
      'an authorizer denied user "demo-user" update deployments/finalizers (apps) "web" in namespace "team-a" outright (tenants may not finalize); no Role lifts a deny',
    );
  });

  it('a denial beside an error: the Role for the denial, the error said as it is', () => {
    const explained = explain(
      fact(question('a'), noOpinion),
      fact(question('b'), { decision: 'no-opinion', reason: '', error: 'connection refused' }),
    );
    expect(explained.objects.map((o) => o.kind)).toEqual(['Role', 'RoleBinding']);
    expect((explained.objects[0] as { rules: Array<{ resourceNames: string[] }> }).rules[0]!.resourceNames).toEqual(['a']);
    expect(explained.warnings[0]).toMatch(/"a" in namespace "team-a" \(and 1 more, all in the audit annotation\)$/);
    expect(explained.lines[1]).toMatch(/could not answer .* "b" .*: connection refused;/);
  });

  it('the same question asked for two REST mappings of a kind is one line', () => {
    const v1 = question('web');
    const v2 = { ...v1, resourceAttributes: { ...v1.resourceAttributes!, version: 'v2' } };
    expect(explain(fact(v1, noOpinion), fact(v2, noOpinion)).lines.filter((l) => l.startsWith('user'))).toHaveLength(1);
  });

  it('long names are shortened in the warning, never in the YAML; a command too long for a warning stays out of it', () => {
    const long = 'n'.repeat(250);
    const explained = explain(fact(question(long, `u${'x'.repeat(200)}`), noOpinion));
    expect(explained.warnings).toHaveLength(1);
    expect([...explained.warnings[0]!].length).toBeLessThanOrEqual(maxWarningRunes);
    expect(explained.warnings[0]).toContain('…');
    expect(explained.text).toContain(long);
    expect(explained.commands[0]).toContain(long);
  });

  it('control characters never reach a warning (kube-apiserver would drop it)', () => {
    const explained = explain(fact(question('web', 'eve\u0085\u0007'), noOpinion));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    for (const warning of explained.warnings) expect(warning).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(explained.warnings[0]).toContain('eve\\u0085\\u0007');
  });
});

describe('bounds', () => {
  it("at most four warnings, each within a warning's length, however many facts", () => {
    const facts = Array.from({ length: 50 }, (_, i) => fact(question(`owner-${i}`), noOpinion));
    const explained = explain(...facts, { type: FactType.MissingServiceAccount, namespace: 'a', name: 'b' });
    expect(explained.warnings.length).toBeLessThanOrEqual(maxWarningsPerExplanation);
    for (const warning of explained.warnings) expect([...warning].length).toBeLessThanOrEqual(maxWarningRunes);
  });

  it('the annotation stays within its size: whole objects only, and it says how many were left out', () => {
    const objects = Array.from({ length: 100 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: `sa-${i}-${'x'.repeat(100)}`, namespace: 'ns' },
    }));
    const text = explanationText(['one line'], objects);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxAnnotationBytes);
    expect(text).toMatch(/# … \d+ more objects: run admission-chain explain for the whole remedy\n$/);
    const parsed = parseAllDocuments(text).map((d) => d.toJS());
    expect(parsed.length).toBeGreaterThan(10);
    for (const [i, object] of parsed.entries()) expect(object).toEqual(objects[i]);
  });

  it('says when the plugin stopped gathering before the end', () => {
    const explained = createExplainer().explain({ facts: [fact(question('web'), noOpinion)], incomplete: true }, context);
    expect(explained.lines.at(-1)).toMatch(/^more may be missing/);
  });
});

describe("other plugins' facts", () => {
  it('a missing service account: the command and the object that create it', () => {
    const explained = explain({ type: FactType.MissingServiceAccount, namespace: 'team-a', name: 'builder' });
    expect(explained.commands).toEqual(['kubectl create serviceaccount builder -n team-a']);
    expect(explained.objects).toEqual([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'team-a' } }]);
    expect(explained.warnings).toEqual([
      'service account "builder" does not exist in namespace "team-a": create it, or name one that exists in spec.serviceAccountName',
      'kubectl create serviceaccount builder -n team-a',
    ]);
  });

  it.each([
    [
      ['AlwaysPullImages'],
      'the mutating webhook sets Always (AlwaysPullImages in /mutate): it did not see this pod, or a later webhook changed the policy back',
    ],
    [[], "nothing here sets it: AlwaysPullImages is not in this server's mutating webhook"],
  ])('a pull policy that is not Always, with mutating plugins %j', (mutatingPlugins, second) => {
    const explained = createExplainer().explain(
      { facts: [{ type: FactType.PullPolicy, fields: [{ path: 'spec.containers[0].imagePullPolicy', value: 'IfNotPresent' }], total: 3 }] },
      { mutatingPlugins },
    );
    expect(explained.warnings).toEqual([
      'spec.containers[0].imagePullPolicy is "IfNotPresent" (and 2 more), not "Always": every container needs imagePullPolicy: Always (and every image volume pullPolicy: Always)',
      second,
    ]);
  });

  it.each<[DenialFact, string]>([
    [
      { type: FactType.UnmappedOwner, apiVersion: 'v1', kind: 'Widget', name: 'w', error: 'no matches for kind "Widget" in version "v1"' },
      'ownerReference Widget "w" (v1) is not a kind the API server serves: correct its apiVersion and kind',
    ],
    [
      {
        type: FactType.NodeSelectorConflict,
        namespace: 'team-a',
        conflicts: [{ key: 'pool', podValue: 'gpu', namespaceValue: 'general' }],
      },
      `nodeSelector pool=gpu conflicts with namespace "team-a"'s node selector (pool=general): drop it from the pod; the namespace's labels are added`,
    ],
    [
      { type: FactType.NodeSelectorWhitelist, namespace: 'team-a', labels: [{ key: 'zone', value: 'b', allowed: 'a' }] },
      `nodeSelector zone=b (allowed: zone=a) is outside namespace "team-a"'s PodNodeSelector whitelist: remove it, or have the whitelist allow it`,
    ],
    [
      {
        type: FactType.TolerationWhitelist,
        namespace: 'team-a',
        scope: 'namespace',
        tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
        total: 1,
      },
      `toleration {"key":"gpu","operator":"Exists","effect":"NoSchedule"} is not in namespace "team-a"'s tolerationsWhitelist: remove it from the pod, or have the whitelist cover it`,
    ],
    [
      {
        type: FactType.TolerationWhitelist,
        namespace: 'team-a',
        scope: 'cluster',
        tolerations: [{ key: 'a', operator: 'Exists' }],
        total: 3,
      },
      `toleration {"key":"a","operator":"Exists"} (+2) is not in PodTolerationRestriction's cluster whitelist: remove them from the pod, or have the whitelist cover them`,
    ],
    [
      { type: FactType.ExternalIPs, added: ['203.0.113.7'], total: 1 },
      'new external IP 203.0.113.7 is denied here (DenyServiceExternalIPs): remove it from spec.externalIPs; expose the Service with type LoadBalancer or NodePort',
    ],
    [
      { type: FactType.ExternalIPs, added: ['203.0.113.7', '203.0.113.8'], total: 3 },
      'new external IPs 203.0.113.7, 203.0.113.8 and 1 more are denied here (DenyServiceExternalIPs): remove them from spec.externalIPs; expose the Service with type LoadBalancer or NodePort',
    ],
    [
      { type: FactType.AntiAffinityTopology, topologyKey: 'topology.kubernetes.io/zone', term: 0 },
      'required pod anti-affinity term 0 uses topologyKey "topology.kubernetes.io/zone"; only kubernetes.io/hostname is allowed: use it, or make the term preferred',
    ],
  ])('%#: %s', (denial, expected) => {
    const explained = explain(denial);
    expect(explained.warnings).toEqual([expected]);
    expect(explained.lines[0]!.length).toBeGreaterThan(expected.length);
    for (const warning of explained.warnings) expect([...warning].length).toBeLessThanOrEqual(maxWarningRunes);
    expect(explained.objects).toEqual([]);
  });
});
