// rbac.authorization.k8s.io/v1 shapes used by the embedded RBAC evaluator.
import type { KubeObject } from './types.ts';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface AggregationRule {
  clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string>; matchExpressions?: unknown[] }>;
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export type ClusterRoleBinding = RoleBinding;
