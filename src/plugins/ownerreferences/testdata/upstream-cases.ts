// Every row of upstream plugin/pkg/admission/gc/gc_admission_test.go (TestGCAdmission and
// TestBlockOwnerDeletionAdmission), as data, with upstream's own doubles: its fakeAuthorizer, the
// request it builds for a row (namespace "default", name "foo"), and the message a rejected row
// carries. Each row also names the decision path we expect, which upstream cannot observe but our
// audit annotation records.
import type { Attributes } from '../../../admission/attributes.ts';
import { Operation } from '../../../admission/operation.ts';
import type { KubeObject, OwnerReference, UserInfo } from '../../../api/types.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../../ports/authorizer.ts';

export type Expectation = 'allowed' | 'cannot-delete' | 'cannot-set-finalizers';
export type ExpectedPath = 'whitelisted' | 'unchanged' | 'no-new-blocking-refs' | 'wildcard-probe' | 'per-reference' | 'none';

export interface UpstreamCase {
  name: string;
  username: string;
  /** Core v1 resource of the request. */
  resource: string;
  subresource?: string;
  oldObj?: KubeObject;
  newObj: KubeObject;
  expect: Expectation;
  path: ExpectedPath;
  /** upstream's neverReturningRESTMapper: the mapper must not be consulted at all. */
  hangingRestMapper?: boolean;
}

const pod = (...ownerReferences: OwnerReference[]): KubeObject => ({ metadata: { ownerReferences } });
const emptyPod = (): KubeObject => ({});
const firstOnly = (): KubeObject => pod({ name: 'first' } as OwnerReference);
const firstAndSecond = (): KubeObject => pod({ name: 'first' } as OwnerReference, { name: 'second' } as OwnerReference);

export const gcAdmissionCases: UpstreamCase[] = [
  {
    name: 'super-user, create, no objectref change',
    username: 'super',
    resource: 'pods',
    newObj: emptyPod(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'super-user, create, objectref change',
    username: 'super',
    resource: 'pods',
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-deleter, create, no objectref change',
    username: 'non-deleter',
    resource: 'pods',
    newObj: emptyPod(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'non-deleter, create, objectref change',
    username: 'non-deleter',
    resource: 'pods',
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-pod-deleter, create, no objectref change',
    username: 'non-pod-deleter',
    resource: 'pods',
    newObj: emptyPod(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'non-pod-deleter, create, objectref change',
    username: 'non-pod-deleter',
    resource: 'pods',
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-pod-deleter, create, objectref change, but not a pod',
    username: 'non-pod-deleter',
    resource: 'not-pods',
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'super-user, update, no objectref change',
    username: 'super',
    resource: 'pods',
    oldObj: emptyPod(),
    newObj: emptyPod(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'super-user, update, no objectref change two',
    username: 'super',
    resource: 'pods',
    oldObj: firstOnly(),
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'super-user, update, objectref change',
    username: 'super',
    resource: 'pods',
    oldObj: emptyPod(),
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-deleter, update, no objectref change',
    username: 'non-deleter',
    resource: 'pods',
    oldObj: emptyPod(),
    newObj: emptyPod(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'non-deleter, update, no objectref change two',
    username: 'non-deleter',
    resource: 'pods',
    oldObj: firstOnly(),
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'non-deleter, update, objectref change',
    username: 'non-deleter',
    resource: 'pods',
    oldObj: emptyPod(),
    newObj: firstOnly(),
    expect: 'cannot-delete',
    path: 'none',
  },
  {
    name: 'non-deleter, update, objectref change two',
    username: 'non-deleter',
    resource: 'pods',
    oldObj: firstOnly(),
    newObj: firstAndSecond(),
    expect: 'cannot-delete',
    path: 'none',
  },
  {
    name: 'non-pod-deleter, update, no objectref change',
    username: 'non-pod-deleter',
    resource: 'pods',
    oldObj: emptyPod(),
    newObj: emptyPod(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'non-pod-deleter, update status, objectref change',
    username: 'non-pod-deleter',
    resource: 'pods',
    subresource: 'status',
    oldObj: emptyPod(),
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'whitelisted',
  },
  {
    name: 'non-pod-deleter, update, objectref change',
    username: 'non-pod-deleter',
    resource: 'pods',
    oldObj: emptyPod(),
    newObj: firstOnly(),
    expect: 'cannot-delete',
    path: 'none',
  },
  {
    name: 'non-pod-deleter, update, objectref change, but not a pod',
    username: 'non-pod-deleter',
    resource: 'not-pods',
    oldObj: emptyPod(),
    newObj: firstOnly(),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
];

// upstream's owner references; uids are empty there too, which is what makes "same uid" mean
// "the same reference" in the update rows.
const ref = (apiVersion: string, kind: string, name: string, blockOwnerDeletion?: boolean): OwnerReference => {
  const r = { apiVersion, kind, name } as OwnerReference;
  if (blockOwnerDeletion !== undefined) r.blockOwnerDeletion = blockOwnerDeletion;
  return r;
};
const blockRC1 = ref('v1', 'ReplicationController', 'rc1', true);
const blockRC2 = ref('v1', 'ReplicationController', 'rc2', true);
const notBlockRC1 = ref('v1', 'ReplicationController', 'rc1', false);
const notBlockRC2 = ref('v1', 'ReplicationController', 'rc2', false);
const nilBlockRC1 = ref('v1', 'ReplicationController', 'rc1');
const nilBlockRC2 = ref('v1', 'ReplicationController', 'rc2');
const blockDS1 = ref('apps/v1', 'DaemonSet', 'ds1', true);
const notBlockDS1 = ref('apps/v1', 'DaemonSet', 'ds1', false);
const blockNode = ref('v1', 'Node', 'node1', true);
const notBlockNode = ref('v1', 'Node', 'node', false);
const nilBlockNode = ref('v1', 'Node', 'node');

const p = (...refs: OwnerReference[]): KubeObject => pod(...refs.map((r) => ({ ...r })));

export const blockOwnerDeletionCases: UpstreamCase[] = [
  // create
  {
    name: 'super-user, create, no ownerReferences',
    username: 'super',
    resource: 'pods',
    newObj: p(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'super-user, create, all ownerReferences have blockOwnerDeletion=false',
    username: 'super',
    resource: 'pods',
    newObj: p(notBlockRC1, notBlockRC2),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'super-user, create, some ownerReferences have blockOwnerDeletion=true',
    username: 'super',
    resource: 'pods',
    newObj: p(blockRC1, blockRC2, blockNode),
    expect: 'allowed',
    path: 'wildcard-probe',
  },
  {
    name: 'super-user, create, some ownerReferences have blockOwnerDeletion=true, hangingRESTMapper',
    username: 'super',
    resource: 'pods',
    newObj: p(blockRC1, blockRC2, blockNode),
    expect: 'allowed',
    path: 'wildcard-probe',
    hangingRestMapper: true,
  },
  {
    name: 'non-rc-deleter, create, no ownerReferences',
    username: 'non-rc-deleter',
    resource: 'pods',
    newObj: p(),
    expect: 'allowed',
    path: 'unchanged',
  },
  {
    name: 'non-rc-deleter, create, all ownerReferences have blockOwnerDeletion=false or nil',
    username: 'non-rc-deleter',
    resource: 'pods',
    newObj: p(notBlockRC1, nilBlockRC2),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-node-deleter, create, all ownerReferences have blockOwnerDeletion=false',
    username: 'non-node-deleter',
    resource: 'pods',
    newObj: p(notBlockNode),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-rc-deleter, create, some ownerReferences have blockOwnerDeletion=true',
    username: 'non-rc-deleter',
    resource: 'pods',
    newObj: p(blockRC1, notBlockRC2),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
  {
    name: 'non-rc-deleter, create, some ownerReferences have blockOwnerDeletion=true, but are pointing to daemonset',
    username: 'non-rc-deleter',
    resource: 'pods',
    newObj: p(blockDS1),
    expect: 'allowed',
    path: 'per-reference',
  },
  {
    name: 'non-node-deleter, create, some ownerReferences have blockOwnerDeletion=true',
    username: 'non-node-deleter',
    resource: 'pods',
    newObj: p(blockNode),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
  // update
  {
    name: 'super-user, update, no ownerReferences change blockOwnerDeletion',
    username: 'super',
    resource: 'pods',
    oldObj: p(nilBlockRC1, nilBlockNode),
    newObj: p(notBlockRC1, notBlockNode),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'super-user, update, some ownerReferences change to blockOwnerDeletion=true',
    username: 'super',
    resource: 'pods',
    oldObj: p(notBlockRC1, notBlockNode),
    newObj: p(blockRC1, blockNode),
    expect: 'allowed',
    path: 'wildcard-probe',
  },
  {
    name: 'super-user, update, add new ownerReferences with blockOwnerDeletion=true',
    username: 'super',
    resource: 'pods',
    oldObj: p(),
    newObj: p(blockRC1, blockNode),
    expect: 'allowed',
    path: 'wildcard-probe',
  },
  {
    name: 'non-rc-deleter, update, no ownerReferences change blockOwnerDeletion',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(nilBlockRC1),
    newObj: p(notBlockRC1),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-rc-deleter, update, some ownerReferences change from blockOwnerDeletion=false to true',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(notBlockRC1),
    newObj: p(blockRC1),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
  {
    name: 'non-rc-deleter, update, some ownerReferences change from blockOwnerDeletion=nil to true',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(nilBlockRC1),
    newObj: p(blockRC1),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
  {
    name: 'non-node-deleter, update, some ownerReferences change from blockOwnerDeletion=nil to true',
    username: 'non-node-deleter',
    resource: 'pods',
    oldObj: p(nilBlockNode),
    newObj: p(blockNode),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
  {
    name: 'non-rc-deleter, update, some ownerReferences change from blockOwnerDeletion=true to false',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(blockRC1),
    newObj: p(notBlockRC1),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-node-deleter, update, some ownerReferences change from blockOwnerDeletion=true to false',
    username: 'non-node-deleter',
    resource: 'pods',
    oldObj: p(blockNode),
    newObj: p(notBlockNode),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-rc-deleter, update, some ownerReferences change blockOwnerDeletion, but all such references are to daemonset',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(notBlockDS1),
    newObj: p(blockDS1),
    expect: 'allowed',
    path: 'per-reference',
  },
  {
    name: 'non-rc-deleter, update, add new ownerReferences with blockOwnerDeletion=nil or false',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(),
    newObj: p(notBlockRC1, nilBlockRC2),
    expect: 'allowed',
    path: 'no-new-blocking-refs',
  },
  {
    name: 'non-rc-deleter, update, add new ownerReferences with blockOwnerDeletion=true',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(),
    newObj: p(blockRC1),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
  {
    name: 'non-rc-deleter, update, add new ownerReferences with blockOwnerDeletion=true, but the references are to daemonset',
    username: 'non-rc-deleter',
    resource: 'pods',
    oldObj: p(),
    newObj: p(blockDS1),
    expect: 'allowed',
    path: 'per-reference',
  },
  {
    name: 'non-node-deleter, update, add ownerReferences with blockOwnerDeletion=true',
    username: 'non-node-deleter',
    resource: 'pods',
    oldObj: p(),
    newObj: p(blockNode),
    expect: 'cannot-set-finalizers',
    path: 'per-reference',
  },
];

export const allUpstreamCases: UpstreamCase[] = [...gcAdmissionCases, ...blockOwnerDeletionCases];

const deny: AuthorizationResult = { decision: 'no-opinion', reason: '' };
const allow: AuthorizationResult = { decision: 'allow', reason: '' };

/** A user upstream's fakeAuthorizer restricts: no delete and no finalizers on `resource` ("" = any). */
function restricted(resource: string, a: NonNullable<AuthorizationAttributes['resourceAttributes']>): AuthorizationResult {
  const onResource = resource === '' || a.resource === resource;
  if (a.verb === 'delete' && onResource) return deny;
  if (a.verb === 'update' && onResource && a.subresource === 'finalizers') return deny;
  // None of these users has full rights, so the wildcard probe is never theirs.
  if (a.group === '*' && a.resource === '*') return deny;
  return allow;
}

/** upstream gc_admission_test.go fakeAuthorizer's answer, by user name. */
function upstreamFakeAnswer(attributes: AuthorizationAttributes): AuthorizationResult {
  const a = attributes.resourceAttributes;
  if (a === undefined) return allow;
  switch (attributes.user.username) {
    case 'non-deleter':
      return restricted('', a);
    case 'non-pod-deleter':
      return restricted('pods', a);
    case 'non-rc-deleter':
      return restricted('replicationcontrollers', a);
    case 'non-node-deleter':
      return restricted('nodes', a);
    default:
      return allow;
  }
}

/** upstream gc_admission_test.go fakeAuthorizer. */
export const upstreamFakeAuthorizer: Authorizer = {
  authorize: async (attributes) => upstreamFakeAnswer(attributes),
};

export function attributesFor(
  c: Pick<UpstreamCase, 'username' | 'resource' | 'subresource' | 'oldObj' | 'newObj'>,
  user?: UserInfo,
): Attributes {
  return {
    uid: 'test-uid',
    operation: c.oldObj === undefined ? Operation.Create : Operation.Update,
    kind: { group: '', version: '', kind: '' },
    resource: { group: '', version: 'v1', resource: c.resource },
    subresource: c.subresource ?? '',
    namespace: 'default',
    name: 'foo',
    object: structuredClone(c.newObj),
    oldObject: c.oldObj === undefined ? undefined : structuredClone(c.oldObj),
    userInfo: user ?? { username: c.username },
    dryRun: false,
    options: {},
  };
}

/** The full message a rejected row must carry (reason "" and no error, as upstream's fake gives). */
export function expectedMessage(c: UpstreamCase, reason = '', error = '<nil>'): string | undefined {
  const prefix = `${c.resource} "foo" is forbidden: `;
  switch (c.expect) {
    case 'allowed':
      return undefined;
    case 'cannot-delete':
      return `${prefix}cannot set an ownerRef on a resource you can't delete: ${reason}, ${error}`;
    case 'cannot-set-finalizers':
      return `${prefix}cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${reason}, ${error}`;
  }
}
