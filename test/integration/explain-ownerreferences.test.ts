// Every denial in upstream's OwnerReferencesPermissionEnforcement tables, explained: the message is
// upstream's, unchanged; adding the suggested Roles and bindings to the cluster state turns the
// same request into allowed (sufficient); taking away any one of them, or any one name from a
// rule's resourceNames, does not (minimal). Answered by the embedded RBAC evaluator over
// test/fixtures/ownerreferences/cluster-state.yaml, as the local backend answers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ClusterState, parseClusterState } from '../../src/adapters/local/cluster-state.ts';
import { createRbacAuthorizer } from '../../src/adapters/local/rbac/index.ts';
import { createLocalRestMapper } from '../../src/adapters/local/rest-mapper.ts';
import type { Attributes } from '../../src/admission/attributes.ts';
import { AdmissionChain, type PhaseOutcome } from '../../src/admission/chain.ts';
import { PluginMode } from '../../src/admission/plugin.ts';
import type { PolicyRule } from '../../src/api/rbac.ts';
import type { KubeObject, OwnerReference } from '../../src/api/types.ts';
import { withObjectsAppended } from '../../src/explain/apply.ts';
import { createExplainer } from '../../src/explain/index.ts';
import { maxWarningRunes, maxWarningsPerExplanation } from '../../src/explain/limits.ts';
import { definition } from '../../src/plugins/ownerreferences/index.ts';
import { allUpstreamCases, attributesFor, expectedMessage } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import { systemClock, systemRandom } from '../../src/ports/clock.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { deadlineOf } from '../support/attributes.ts';
import { fixtureClusterStatePath } from '../support/cluster-state.ts';

const fixtureText = readFileSync(fixtureClusterStatePath('ownerreferences/cluster-state.yaml'), 'utf8');

async function validate(state: ClusterState, attributes: Attributes): Promise<PhaseOutcome> {
  const authorizer = createRbacAuthorizer(state);
  const ports = { logger: silentLogger, clock: systemClock, random: systemRandom, authorizer, restMapper: createLocalRestMapper(state) };
  const chain = new AdmissionChain([{ plugin: definition.create(ports), mode: PluginMode.Enforce }], {
    explainer: createExplainer({ grants: authorizer.grants }),
  });
  return chain.validate(structuredClone(attributes), deadlineOf(AbortSignal.timeout(5000)));
}

const withObjects = (objects: readonly KubeObject[]) =>
  parseClusterState(withObjectsAppended(fixtureText, objects), 'fixture + suggestion');

/** Every way to take one grant away: one whole Role or binding, or one name of a rule's resourceNames. */
function oneTakenAway(objects: readonly KubeObject[]): Array<{ label: string; objects: KubeObject[] }> {
  const variants: Array<{ label: string; objects: KubeObject[] }> = [];
  objects.forEach((object, i) => {
    variants.push({ label: `without ${object.kind} ${object.metadata?.name}`, objects: objects.filter((_, j) => j !== i) });
    const rules = (object as { rules?: PolicyRule[] }).rules ?? [];
    rules.forEach((rule, r) => {
      for (const name of rule.resourceNames ?? []) {
        if ((rule.resourceNames ?? []).length < 2) continue;
        const narrowed = structuredClone(object) as KubeObject & { rules: PolicyRule[] };
        narrowed.rules[r]!.resourceNames = rule.resourceNames!.filter((n) => n !== name);
        variants.push({ label: `${object.metadata?.name} without name ${name}`, objects: objects.map((o, j) => (j === i ? narrowed : o)) });
      }
    });
  });
  return variants;
}

/** Nothing broader than asked: one verb, one group, one resource per rule, bound to the requester alone. */
function expectNarrow(objects: readonly KubeObject[], username: string): void {
  for (const object of objects) {
    if (object.kind === 'Role' || object.kind === 'ClusterRole') {
      for (const rule of (object as { rules: PolicyRule[] }).rules) {
        expect(rule.verbs).toHaveLength(1);
        expect(rule.apiGroups).toHaveLength(1);
        expect(rule.resources).toHaveLength(1);
        expect(rule.verbs[0]).not.toBe('*');
      }
    } else {
      expect((object as { subjects: unknown[] }).subjects).toEqual([
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: username },
      ]);
    }
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const deniedRows = allUpstreamCases.filter((c) => c.expect !== 'allowed');

describe('every ORPE denial in the upstream tables, explained', () => {
  it('covers both kinds of denial', () => {
    expect(new Set(deniedRows.map((c) => c.expect))).toEqual(new Set(['cannot-delete', 'cannot-set-finalizers']));
    expect(deniedRows.length).toBeGreaterThanOrEqual(9);
  });

  it.each(deniedRows)('$name', async (c) => {
    const before = await validate(withObjects([]), attributesFor(c));
    expect(before.rejection?.message).toBe(expectedMessage(c));
    const [explained] = before.explanations ?? [];
    expect(explained?.plugin).toBe('OwnerReferencesPermissionEnforcement');
    const { objects, warnings, text } = explained!.explained;
    expect(objects.length).toBeGreaterThan(0);
    expectNarrow(objects, c.username);
    // The warning names the requester and what was denied; the annotation carries the YAML.
    expect(warnings[0]).toMatch(
      new RegExp(
        `^user "${c.username}" may not (delete pods "foo" in namespace "default"|update (replicationcontrollers|nodes)/finalizers "(rc1|node1)")`,
      ),
    );
    expect(warnings.length).toBeLessThanOrEqual(maxWarningsPerExplanation);
    for (const warning of warnings) expect([...warning].length).toBeLessThanOrEqual(maxWarningRunes);
    expect(before.annotations['OwnerReferencesPermissionEnforcement.explanation']).toBe(text);
    expect(text).toContain('kind: ');

    const after = await validate(withObjects(objects), attributesFor(c));
    expect(after.rejection).toBeUndefined();

    // Still denied: the same check fails (a binding left without its Role only adds RBAC's note of that).
    for (const variant of oneTakenAway(objects)) {
      const without = await validate(withObjects(variant.objects), attributesFor(c));
      expect(without.rejection?.message, variant.label).toMatch(
        new RegExp(`^${escapeRegExp(expectedMessage(c)!.replace(/: , <nil>$/, ''))}: `),
      );
    }
  });
});

describe('a request missing several permissions gets one suggestion that covers them all', () => {
  const block = (apiVersion: string, kind: string, name: string): OwnerReference => ({
    apiVersion,
    kind,
    name,
    uid: name,
    blockOwnerDeletion: true,
  });
  // non-deleter may delete nothing and finalize nothing: an update that adds two blocking owners of
  // one kind and one cluster-scoped owner is denied delete on the pod, and update on three finalizers.
  const attributes = attributesFor({
    username: 'non-deleter',
    resource: 'pods',
    oldObj: {},
    newObj: {
      metadata: {
        ownerReferences: [
          block('v1', 'ReplicationController', 'rc1'),
          block('v1', 'Node', 'node1'),
          block('v1', 'ReplicationController', 'rc2'),
        ],
      },
    },
  });

  it("the first denial is upstream's message; the explanation names every question; granting them all admits the request", async () => {
    const before = await validate(withObjects([]), attributes);
    expect(before.rejection?.message).toBe(`pods "foo" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`);
    const { objects, lines } = before.explanations![0]!.explained;
    expect(lines.filter((l) => l.startsWith('user '))).toEqual([
      'user "non-deleter" may not delete pods "foo" in namespace "default"',
      'user "non-deleter" may not update replicationcontrollers/finalizers "rc1" in namespace "default"',
      'user "non-deleter" may not update nodes/finalizers "node1" cluster-wide',
      'user "non-deleter" may not update replicationcontrollers/finalizers "rc2" in namespace "default"',
    ]);
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'Role/delete-pods-foo',
      'RoleBinding/delete-pods-foo-non-deleter',
      'Role/update-replicationcontrollers-finalizers-2-names',
      'RoleBinding/update-replicationcontrollers-finalizers-2-names-non-deleter',
      'ClusterRole/update-nodes-finalizers-node1',
      'ClusterRoleBinding/update-nodes-finalizers-node1-non-deleter',
    ]);
    expect(objects[2]).toMatchObject({
      rules: [{ apiGroups: [''], resources: ['replicationcontrollers/finalizers'], resourceNames: ['rc1', 'rc2'], verbs: ['update'] }],
    });

    const after = await validate(withObjects(objects), attributes);
    expect(after.rejection).toBeUndefined();
    for (const variant of oneTakenAway(objects)) {
      const without = await validate(withObjects(variant.objects), attributes);
      expect(without.rejection, variant.label).toBeDefined();
    }
  });
});
