// admissionregistration.k8s.io/v1 webhook configurations as the stand-in stores them, with the
// defaults kube-apiserver fills in on create (so a hook read from the store is complete).
import type { MatchCondition, RuleWithOperations } from '../deploy/webhook-match.ts';
import type { ResourceType } from '../apiserver/index.ts';
import type { LabelSelector } from './label-selector.ts';

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 PEM bundle; absent means the system roots. */
  caBundle?: string;
}

export interface Webhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  timeoutSeconds?: number;
  admissionReviewVersions: string[];
  matchConditions?: MatchCondition[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string; [key: string]: unknown };
  webhooks?: Webhook[];
}

export type Phase = 'mutating' | 'validating';

export const webhookConfigurationTypes: Record<Phase, ResourceType> = {
  mutating: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false },
  validating: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false },
};

/** SetDefaults_*Webhook and SetDefaults_Rule for admissionregistration/v1. */
export function withDefaults(webhook: Webhook, phase: Phase): Webhook {
  return {
    ...webhook,
    failurePolicy: webhook.failurePolicy ?? 'Fail',
    matchPolicy: webhook.matchPolicy ?? 'Equivalent',
    namespaceSelector: webhook.namespaceSelector ?? {},
    objectSelector: webhook.objectSelector ?? {},
    timeoutSeconds: webhook.timeoutSeconds ?? 10,
    rules: (webhook.rules ?? []).map((rule) => ({ ...rule, scope: rule.scope ?? '*' })),
    ...(phase === 'mutating' ? { reinvocationPolicy: webhook.reinvocationPolicy ?? 'Never' } : {}),
  };
}
