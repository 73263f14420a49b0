// OwnerReferencesPermissionEnforcement's replayed upstream rows, checked without a server: which rows
// become requests and which are left out; that each is a request the API takes (a real pod with
// complete references, an update of a pod the world stores with the row's old references); that the
// world's RBAC gives each row's user what upstream's fakeAuthorizer gives it; and that our plugin,
// asking the world's RBAC about the requests as a server would send them, still answers each row as
// upstream's table says.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/core.ts';
import type { KubeObject, OwnerReference } from '../../src/api/types.ts';
import { ownerReferencesPermissionEnforcement } from '../../src/plugins/ownerreferences/index.ts';
import {
  allUpstreamCases,
  attributesFor,
  blockOwnerDeletionCases,
  gcAdmissionCases,
  upstreamFakeAuthorizer,
} from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import type { AuthorizationAttributes, Authorizer, ResourceAttributes } from '../../src/ports/authorizer.ts';
import { requestContext } from '../support/attributes.ts';
import { rejectionOf } from '../support/rejections.ts';
import { fixedRestMapper } from '../support/rest-mappers.ts';
import type { OracleCase } from './generate.ts';
import { notReplayed, ownerReferenceRows, rowIdentities, upstreamDenials } from './owner-reference-rows.ts';
import type { Identity } from './request.ts';
import { upstreamCases } from './upstream-rows.ts';
import { existingObjects, ownerReferenceRowNamespace, realOwnerReferences, worldObjects } from './world.ts';

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const plugin = 'OwnerReferencesPermissionEnforcement';
const cases = ownerReferenceRows();
const replayedRows = allUpstreamCases.filter((row) => notReplayed(row) === undefined);
const testOf = (row: (typeof allUpstreamCases)[number]) =>
  gcAdmissionCases.includes(row) ? 'TestGCAdmission' : 'TestBlockOwnerDeletionAdmission';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string }[];
}

/** The world's RBAC, evaluated as RBAC does for the questions these rows ask (the admin is system:masters: everything). */
function worldRbac(): Authorizer {
  const objects = worldObjects().filter((o): o is RbacObject =>
    ['ClusterRole', 'ClusterRoleBinding', 'RoleBinding'].includes((o as RbacObject).kind),
  );
  const roles = new Map(objects.filter((o) => o.kind === 'ClusterRole').map((o) => [o.metadata.name, o.rules ?? []]));
  const has = (items: string[] | undefined, item: string) => (items ?? []).includes('*') || (items ?? []).includes(item);
  const allows = (rule: Rule, a: ResourceAttributes) =>
    has(rule.verbs, a.verb) &&
    has(rule.apiGroups, a.group ?? '') &&
    has(rule.resources, a.subresource ? `${a.resource}/${a.subresource}` : (a.resource ?? '')) &&
    (rule.resourceNames === undefined || rule.resourceNames.includes(a.name ?? ''));
  return {
    async authorize({ user, resourceAttributes: a }: AuthorizationAttributes) {
      if (a === undefined) throw new Error('these rows ask only about resources');
      if (user.username === 'admin') return { decision: 'allow', reason: '' };
      const bound = objects.filter(
        (b) =>
          (b.kind === 'ClusterRoleBinding' || (b.kind === 'RoleBinding' && b.metadata.namespace === a.namespace)) &&
          (b.subjects ?? []).some((s) => (s.kind === 'User' ? s.name === user.username : (user.groups ?? []).includes(s.name))),
      );
      const rules = bound.flatMap((b) => (b.roleRef?.kind === 'ClusterRole' ? (roles.get(b.roleRef.name) ?? []) : []));
      return rules.some((rule) => allows(rule, a)) ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' };
    },
  };
}

/** The kinds upstream's fake discovery serves, as every real server serves them. */
const serverMapper = fixedRestMapper([
  { group: '', version: 'v1', kind: 'Node', resource: 'nodes', namespaced: false },
  { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true },
  { group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true },
]);

const storedPods = existingObjects().map((o) => o as Pod);
const storedPod = (oracleCase: OracleCase) =>
  storedPods.find((p) => p.metadata?.name === oracleCase.request.name && p.metadata?.namespace === oracleCase.request.namespace);

function expectRealReferences(references: readonly OwnerReference[] | undefined): void {
  for (const reference of references ?? []) {
    for (const field of ['apiVersion', 'kind', 'name', 'uid'] as const) expect(reference[field], field).toMatch(/\S/);
    expect(reference.controller).toBeUndefined();
  }
}

describe("OwnerReferencesPermissionEnforcement's rows: which are replayed", () => {
  it('replays every row of both tables but the two on not-pods, the pods/status one and the hanging REST mapper one', () => {
    expect(allUpstreamCases.filter((row) => notReplayed(row) !== undefined).map((row) => row.name)).toEqual([
      'non-pod-deleter, create, objectref change, but not a pod',
      'non-pod-deleter, update status, objectref change',
      'non-pod-deleter, update, objectref change, but not a pod',
      'super-user, create, some ownerReferences have blockOwnerDeletion=true, hangingRESTMapper',
    ]);
    expect(cases.map((c) => c.id)).toEqual(replayedRows.map((row) => `upstream ${plugin}: ${testOf(row)}: ${row.name}`));
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    expect(cases).toHaveLength(gcAdmissionCases.length + blockOwnerDeletionCases.length - 4);
  });

  it('is part of the upstream cases exactly when the plugin is selected', () => {
    expect(upstreamCases([plugin]).map((c) => c.id)).toEqual(cases.map((c) => c.id));
    expect(upstreamCases(['AlwaysPullImages', 'RuntimeClass']).some((c) => c.plugin === plugin)).toBe(false);
  });

  it("carries each row's expectation, and for a denial the words upstream's check looks for", () => {
    for (const [i, oracleCase] of cases.entries()) {
      const row = replayedRows[i]!;
      expect(oracleCase.plugin).toBe(plugin);
      expect(oracleCase.upstreamExpects, row.name).toBe(row.expect === 'allowed' ? 'admitted' : 'denied');
      expect(oracleCase.upstreamDenial, row.name).toBe(row.expect === 'allowed' ? undefined : upstreamDenials[row.expect]);
    }
    // Both tables' denials are among the replayed rows.
    expect(new Set(cases.map((c) => c.upstreamDenial))).toEqual(new Set([undefined, ...Object.values(upstreamDenials)]));
  });
});

describe("OwnerReferencesPermissionEnforcement's rows: each a request the API takes", () => {
  it("creates a real pod carrying the row's references, made complete", () => {
    const creates = cases.filter((c) => c.request.operation === 'create');
    expect(creates.length).toBeGreaterThan(0);
    for (const oracleCase of creates) {
      const row = replayedRows[cases.indexOf(oracleCase)]!;
      expect(oracleCase.request).toMatchObject({ resource: 'pods', namespace: ownerReferenceRowNamespace });
      const pod = oracleCase.request.object as Pod;
      expect([pod.apiVersion, pod.kind]).toEqual(['v1', 'Pod']);
      expect(pod.metadata?.name).toMatch(dnsLabel);
      expect(pod.spec?.containers?.every((c) => dnsLabel.test(c.name) && /\S/.test(c.image ?? ''))).toBe(true);
      expectRealReferences(pod.metadata?.ownerReferences);
      expect(pod.metadata?.ownerReferences ?? []).toEqual(realOwnerReferences(row.newObj.metadata?.ownerReferences));
    }
  });

  it("patches a pod the world stores with the row's old references, setting the row's new ones", () => {
    const updates = cases.filter((c) => c.request.operation === 'update');
    expect(updates.length).toBeGreaterThan(0);
    for (const oracleCase of updates) {
      const row = replayedRows[cases.indexOf(oracleCase)]!;
      expect(oracleCase.request).toMatchObject({ resource: 'pods', namespace: ownerReferenceRowNamespace });
      expect(oracleCase.request.subresource).toBeUndefined();
      const pod = storedPod(oracleCase);
      expect(pod, row.name).toBeDefined();
      expectRealReferences(pod?.metadata?.ownerReferences);
      expect(pod?.metadata?.ownerReferences).toEqual(realOwnerReferences(row.oldObj?.metadata?.ownerReferences));
      const references = realOwnerReferences(row.newObj.metadata?.ownerReferences);
      expectRealReferences(references);
      expect(oracleCase.request.change).toEqual({ patch: 'merge', body: { metadata: { ownerReferences: references } } });
    }
    // One stored pod per update row, under names of their own.
    const names = updates.map((c) => c.request.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives an owner the same uid before and after, and two owners two uids', () => {
    const [rc1, rc2, node, node1] = realOwnerReferences([
      { name: 'rc1' },
      { name: 'rc2' },
      { name: 'node' },
      { name: 'node1' },
    ] as OwnerReference[]);
    expect(new Set([rc1?.uid, rc2?.uid, node?.uid, node1?.uid]).size).toBe(4);
    expect(realOwnerReferences([{ name: 'rc1', blockOwnerDeletion: true } as OwnerReference])[0]?.uid).toBe(rc1?.uid);
    expect(() => realOwnerReferences([{ name: 'stranger' } as OwnerReference])).toThrow(/stranger/);
  });

  it("sends each row as the user the row names, with that user's rights from the world's RBAC", async () => {
    for (const [i, oracleCase] of cases.entries()) {
      const row = replayedRows[i]!;
      const expected: Identity | undefined = rowIdentities[row.username];
      expect(oracleCase.request.as, row.name).toEqual(expected);
      if (row.username !== 'super') expect(expected, row.username).toBeDefined();
    }
    // The questions the plugin asks for these rows, answered by the world's RBAC as by upstream's fake.
    const rbac = worldRbac();
    const questions: ResourceAttributes[] = [
      { verb: 'update', group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' },
      ...(
        [
          ['', 'pods', ownerReferenceRowNamespace],
          ['', 'replicationcontrollers', ownerReferenceRowNamespace],
          ['', 'nodes', undefined],
          ['apps', 'daemonsets', ownerReferenceRowNamespace],
        ] as const
      ).flatMap(([group, resource, namespace]) => [
        { verb: 'delete', group, version: 'v1', resource, name: 'x', ...(namespace === undefined ? {} : { namespace }) },
        {
          verb: 'update',
          group,
          version: 'v1',
          resource,
          subresource: 'finalizers',
          name: 'x',
          ...(namespace === undefined ? {} : { namespace }),
        },
      ]),
    ];
    for (const [username, identity] of Object.entries(rowIdentities)) {
      if (identity === undefined) continue;
      for (const question of questions) {
        const attributes = (name: string, groups: readonly string[]) => ({
          user: { username: name, groups: [...groups] },
          resourceAttributes: question,
        });
        const ours = await rbac.authorize(attributes(identity.name, identity.groups));
        const upstream = await upstreamFakeAuthorizer.authorize(attributes(username, []));
        expect(ours.decision === 'allow', `${username} ${JSON.stringify(question)}`).toBe(upstream.decision === 'allow');
      }
    }
  });
});

describe("OwnerReferencesPermissionEnforcement's rows: our plugin on the world's RBAC answers as the tables say", () => {
  it.each(cases.map((c, i) => [c.id, c, replayedRows[i]!] as const))('%s', async (_id, oracleCase: OracleCase, row) => {
    const identity = oracleCase.request.as;
    const user =
      identity === undefined
        ? { username: 'admin', groups: ['system:masters'] }
        : { username: identity.name, groups: [...identity.groups] };
    const stored = storedPod(oracleCase);
    const object: KubeObject =
      oracleCase.request.operation === 'create'
        ? (oracleCase.request.object as KubeObject)
        : { ...stored, metadata: { ...stored?.metadata, ...(oracleCase.request.change as { body: { metadata: object } }).body.metadata } };
    const base = attributesFor(
      { username: row.username, resource: 'pods', newObj: object, ...(stored === undefined ? {} : { oldObj: stored as KubeObject }) },
      user,
    );
    const name = (object.metadata as { name: string }).name;
    const plugin = ownerReferencesPermissionEnforcement(worldRbac(), serverMapper);
    const error = await rejectionOf(() => plugin.validate({ ...base, namespace: ownerReferenceRowNamespace, name }, requestContext()));
    if (oracleCase.upstreamExpects === 'admitted') expect(error?.message).toBeUndefined();
    else expect(error?.message).toBe(`pods "${name}" is forbidden: ${oracleCase.upstreamDenial}: , <nil>`);
  });
});
