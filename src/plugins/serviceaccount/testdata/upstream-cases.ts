// Upstream admission_test.go's informer stores, by the case they stand for: what the service
// account cache holds (all in namespace `myns`, as upstream's are).
import type { ServiceAccount } from '../../../ports/lookups.ts';

const inMyns = (name: string, fields: Partial<ServiceAccount> = {}, metadata: Record<string, unknown> = {}): ServiceAccount => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: 'myns', ...metadata },
  ...fields,
});

const informerCaches = {
  /** An empty cache. */
  '': [],
  /** The default service account for the namespace. */
  'default-sa': [inMyns('default', {}, { uid: '12345' })],
  /** TestAllowUnreferencedSecretVolumesForPermissiveSAs: enforcement by annotation only. */
  'enforcing-sa': [inMyns('default', {}, { annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } })],
  /** TestAllowsReferencedImagePullSecrets. */
  'pull-secret-foo': [inMyns('default', { imagePullSecrets: [{ name: 'foo' }] })],
  /** TestDoNotAddImagePullSecrets and TestAddImagePullSecrets. */
  'pull-secrets-foo-bar': [inMyns('default', { imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] })],
  /** TestAllowsReferencedSecret: the default account lists secret foo. */
  'referenced-secret': [inMyns('default', { secrets: [{ name: 'foo' }] })],
  /** The automount decision: opted out, opted in, unset. */
  automount: [
    inMyns('no-automount', { automountServiceAccountToken: false }),
    inMyns('automount', { automountServiceAccountToken: true }),
    inMyns('unset'),
  ],
} satisfies Record<string, ServiceAccount[]>;

export type InformerCache = keyof typeof informerCaches;

export function informerCache(name: InformerCache): readonly ServiceAccount[] {
  return informerCaches[name];
}
