// What the stand-in knows about one write when it runs admission: kube-apiserver's
// admission.Attributes, in wire (JSON) shapes.
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../../src/api/types.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  name: string;
  operation: AdmissionOperation;
  /** CreateOptions / UpdateOptions / DeleteOptions, as sent in AdmissionRequest.options. */
  options: Record<string, unknown>;
  dryRun: boolean;
  userInfo: UserInfo;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
}
