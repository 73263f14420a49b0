// OwnerReferencesPermissionEnforcement's upstream rows (plugin/pkg/admission/gc/gc_admission_test.go:
// TestGCAdmission and TestBlockOwnerDeletionAdmission) replayed as real requests. A create row is a
// dry-run pod create carrying the row's references; an update row is a dry-run merge patch setting the
// row's new references on a pod the world stores with the row's old ones (world.ts). Each is sent as
// the user upstream's fakeAuthorizer answers for, given the same rights through RBAC on both servers
// (world.ts): "super" is the admin, "non-deleter" is alice (a writer who may delete nothing and set
// finalizers on nothing), "non-pod-deleter", "non-rc-deleter" and "non-node-deleter" are writers who may
// delete, and set finalizers on, every resource of upstream's fake discovery but the one their name
// says. The owners need not exist: the plugin asks RBAC by kind and name, resolving the kind through
// the REST mapper, and ReplicationController, Node and DaemonSet are every server's own kinds. What the
// API asks of a reference and upstream's rows leave out (a kind on TestGCAdmission's, a uid on all) is
// filled in by world.ts's realOwnerReferences. Each row carries upstream's expectation: admitted, or
// denied with the message upstream's check looks for.
//
// Not replayed:
// - TestGCAdmission's two "but not a pod" rows: they write to a resource `not-pods`, which no server
//   serves (kube-apiserver answers 404 before admission runs).
// - TestGCAdmission's "update status" row: the oracle sends no pods/status writes, and on a real server
//   the pod status strategy puts the stored references back before validating admission runs
//   (pkg/registry/core/pod/strategy.go, podStatusStrategy.PrepareForUpdate), so no status request
//   reaches the plugin with a changed reference; what the row tests, the plugin's own exemption of
//   pods/status, is the unit test's alone.
// - TestBlockOwnerDeletionAdmission's "hangingRESTMapper" row: a REST mapper that never answers is the
//   unit test's double; the request is the row before it, which is replayed.
import type { UpstreamCase } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import { blockOwnerDeletionCases, gcAdmissionCases } from '../../src/plugins/ownerreferences/testdata/upstream-cases.ts';
import type { OracleCase } from './generate.ts';
import type { Identity } from './request.ts';
import { existingPod, ownerReferenceRowNamespace, ownerReferenceRowPodName, realOwnerReferences, users } from './world.ts';

/** The words of each of upstream's denials (gc_admission.go's two messages). */
export const upstreamDenials = {
  'cannot-delete': "cannot set an ownerRef on a resource you can't delete",
  'cannot-set-finalizers': "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
} as const;

/** Who sends a row, by upstream's user name: undefined is the admin. */
export const rowIdentities: Readonly<Record<string, Identity | undefined>> = {
  super: undefined,
  'non-deleter': users.alice,
  'non-pod-deleter': users.nonPodDeleter,
  'non-rc-deleter': users.nonRcDeleter,
  'non-node-deleter': users.nonNodeDeleter,
};

/** Why a row is not a request the oracle sends, or undefined when it is. */
export function notReplayed(row: UpstreamCase): string | undefined {
  if (row.resource !== 'pods') return `no server serves ${row.resource}`;
  if (row.subresource !== undefined)
    return `the oracle sends no pods/${row.subresource} writes, and the status strategy keeps the stored references`;
  if (row.hangingRestMapper === true) return "a REST mapper that never answers is the unit test's double";
  return undefined;
}

/** Both tables in the order of `allUpstreamCases` (the stored pods are named by that index), with their test's name. */
const rows: ReadonlyArray<[test: string, row: UpstreamCase]> = [
  ...gcAdmissionCases.map((row) => ['TestGCAdmission', row] as [string, UpstreamCase]),
  ...blockOwnerDeletionCases.map((row) => ['TestBlockOwnerDeletionAdmission', row] as [string, UpstreamCase]),
];

function rowCase(test: string, row: UpstreamCase, index: number): OracleCase {
  if (!(row.username in rowIdentities)) throw new Error(`no identity for upstream's user ${row.username}`);
  const as = rowIdentities[row.username];
  const references = realOwnerReferences(row.newObj.metadata?.ownerReferences);
  const request =
    row.oldObj === undefined
      ? {
          operation: 'create' as const,
          resource: 'pods' as const,
          namespace: ownerReferenceRowNamespace,
          object: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: `owner-reference-row-${index}`, ...(references.length === 0 ? {} : { ownerReferences: references }) },
            spec: existingPod(ownerReferenceRowNamespace).spec,
          },
        }
      : {
          operation: 'update' as const,
          resource: 'pods' as const,
          namespace: ownerReferenceRowNamespace,
          name: ownerReferenceRowPodName(index),
          change: { patch: 'merge' as const, body: { metadata: { ownerReferences: references } } },
        };
  return {
    id: `upstream OwnerReferencesPermissionEnforcement: ${test}: ${row.name}`,
    plugin: 'OwnerReferencesPermissionEnforcement',
    request: { ...request, ...(as === undefined ? {} : { as }) },
    upstreamExpects: row.expect === 'allowed' ? 'admitted' : 'denied',
    ...(row.expect === 'allowed' ? {} : { upstreamDenial: upstreamDenials[row.expect] }),
  };
}

/** Every replayable row of both tables. */
export function ownerReferenceRows(): OracleCase[] {
  return rows.flatMap(([test, row], index) => (notReplayed(row) === undefined ? [rowCase(test, row, index)] : []));
}
