// Projections keep only what admission reads, from typed client-node models (LIST, GET) and raw
// watch JSON alike; a Secret never keeps its data, stringData or kubectl's applied copy.

import { V1Namespace, V1Node, V1ObjectMeta, V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { projectNamespace, projectNode, projectRuntimeClass, projectSecret, projectServiceAccount } from './lookup-objects.ts';

function typedMeta(fields: Partial<V1ObjectMeta>): V1ObjectMeta {
  const meta = new V1ObjectMeta();
  // Typed models carry every attribute, most of them undefined.
  for (const attribute of V1ObjectMeta.getAttributeTypeMap()) (meta as unknown as Record<string, unknown>)[attribute.name] = undefined;
  return Object.assign(meta, fields);
}

describe('lookup object projections', () => {
  it('a Secret keeps name, namespace, uid, resourceVersion, annotations and type — nothing else', () => {
    const secret = new V1Secret();
    secret.metadata = typedMeta({
      name: 's',
      namespace: 'ns',
      uid: 'u-1',
      resourceVersion: '7',
      creationTimestamp: new Date(0),
      labels: { a: 'b' },
      annotations: {
        'kubernetes.io/service-account.name': 'sa',
        'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"k":"c2VjcmV0"}}',
      },
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    });
    secret.type = 'Opaque';
    secret.data = { k: 'c2VjcmV0' };
    secret.stringData = { plain: 'secret' };
    secret.immutable = true;
    expect(projectSecret(secret)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'ns',
        uid: 'u-1',
        resourceVersion: '7',
        annotations: { 'kubernetes.io/service-account.name': 'sa' },
      },
      type: 'Opaque',
    });
    expect(JSON.stringify(projectSecret({ metadata: { name: 'raw' }, data: { k: 'c2VjcmV0' }, stringData: { p: 'secret' } }))).not.toMatch(
      /c2VjcmV0|secret"/,
    );
  });

  it('a ServiceAccount keeps automount, secrets and imagePullSecrets, without undefined members', () => {
    const account = new V1ServiceAccount();
    account.metadata = typedMeta({ name: 'sa', namespace: 'ns', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } });
    account.automountServiceAccountToken = false;
    account.secrets = [{ name: 'token', kind: undefined, namespace: undefined }];
    account.imagePullSecrets = [{ name: 'registry' }];
    const projected = projectServiceAccount(account);
    expect(projected).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'sa', namespace: 'ns', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } },
      automountServiceAccountToken: false,
      secrets: [{ name: 'token' }],
      imagePullSecrets: [{ name: 'registry' }],
    });
    expect(Object.keys(projected.secrets![0]!)).toEqual(['name']);
  });

  it('a Node keeps name, resourceVersion and labels only, from a typed model and from raw watch JSON', () => {
    const typed = new V1Node();
    typed.metadata = typedMeta({
      name: 'n1',
      uid: 'u-2',
      resourceVersion: '9',
      labels: { 'topology.kubernetes.io/zone': 'z1', 'kubernetes.io/hostname': 'n1' },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    });
    typed.spec = { podCIDR: '10.0.0.0/24' };
    typed.status = { capacity: { cpu: '4' }, images: [{ names: ['nginx'], sizeBytes: 1 }] };
    const expected = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', resourceVersion: '9', labels: { 'topology.kubernetes.io/zone': 'z1', 'kubernetes.io/hostname': 'n1' } },
    };
    expect(projectNode(typed)).toEqual(expected);
    expect(projectNode(JSON.parse(JSON.stringify(typed)))).toEqual(expected);
    expect(projectNode({ metadata: { name: 'bare' } })).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
  });

  it('a Namespace keeps name, uid, resourceVersion, annotations and labels only, from a typed model and from raw watch JSON', () => {
    const typed = new V1Namespace();
    typed.metadata = typedMeta({
      name: 'team-a',
      uid: 'u-3',
      resourceVersion: '4',
      labels: { team: 'platform', 'kubernetes.io/metadata.name': 'team-a' },
      annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'pool=a', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      finalizers: ['kubernetes'],
    });
    typed.spec = { finalizers: ['kubernetes'] };
    typed.status = { phase: 'Active' };
    const expected = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'team-a',
        uid: 'u-3',
        resourceVersion: '4',
        annotations: { 'scheduler.alpha.kubernetes.io/node-selector': 'pool=a' },
        labels: { team: 'platform', 'kubernetes.io/metadata.name': 'team-a' },
      },
    };
    expect(projectNamespace(typed)).toEqual(expected);
    expect(projectNamespace(JSON.parse(JSON.stringify(typed)))).toEqual(expected);
    expect(projectNamespace({ metadata: { name: 'bare' } })).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bare' } });
  });

  it('a RuntimeClass keeps handler, overhead and scheduling from raw watch JSON', () => {
    const raw = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'kata', labels: { x: 'y' } },
      handler: 'kata',
      overhead: { podFixed: { cpu: '1' } },
      scheduling: { tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 5 }] },
    };
    expect(projectRuntimeClass(raw)).toEqual({
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'kata' },
      handler: 'kata',
      overhead: { podFixed: { cpu: '1' } },
      scheduling: { tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 5 }] },
    });
  });
});
