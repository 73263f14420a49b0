// The subset of Kubernetes API shapes (external, JSON) that admission plugins read and write.
// Fields are optional as on the wire: an AdmissionReview carries whatever the client sent.

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupResource {
  group: string;
  resource: string;
}

/** apimachinery's GroupResource.String(): "pods", "deployments.apps". */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** Splits "apps/v1" into group and version; "v1" is the core group. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

/** The identity of the requester, as authenticated by kube-apiserver (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** metav1.Status, as carried in AdmissionResponse.status. */
export interface Status {
  apiVersion?: 'v1';
  kind?: 'Status';
  metadata?: Record<string, never>;
  status: 'Success' | 'Failure';
  code: number;
  reason?: string;
  message: string;
  details?: StatusDetails;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ type?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}
