// Turns a stand-in API server into one kubectl can `apply --dry-run=server` against: discovery,
// GET/LIST/WATCH and admitted writes for the served resources, and the two admissionregistration
// resources whose stored configurations decide which webhooks each write calls.
import type { KubeObject } from '../../src/api/types.ts';
import type { StandInApiServer } from '../apiserver/index.ts';
import type { DispatcherEnvironment } from './admission-dispatcher.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import { openApiRoutes } from './openapi-routes.ts';
import { apiVersionOf, namespaceType, servedResources } from './served-resources.ts';
import type { ServiceResolver } from './webhook-call.ts';
import { webhookConfigurationTypes, type Phase, type WebhookConfiguration } from './webhook-configurations.ts';
import { writeRoutes } from './write-routes.ts';

export interface KubectlSurface {
  /** Stores a namespace with the kubernetes.io/metadata.name label kube-apiserver defaults onto it. */
  putNamespace(name: string, labels?: Record<string, string>): void;
  /** Stores any served object as-is (no admission), like a seed already in etcd. */
  putObject(object: KubeObject): void;
  /** Stores a rendered MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
  putWebhookConfiguration(configuration: WebhookConfiguration): void;
  environment: DispatcherEnvironment;
}

export function serveKubectlSurface(standIn: StandInApiServer, resolveService: ServiceResolver): KubectlSurface {
  const { store } = standIn;
  const environment: DispatcherEnvironment = {
    configurations: (phase) => store.list(webhookConfigurationTypes[phase]) as unknown as WebhookConfiguration[],
    namespaceLabels: (name) => {
      const namespace = store.get(namespaceType, '', name);
      return namespace === undefined ? undefined : ((namespace.metadata?.labels as Record<string, string> | undefined) ?? {});
    },
    equivalents: (resource) =>
      servedResources
        .filter((t) => t.group === resource.group && t.resource === resource.resource && t.version !== resource.version)
        .map((t) => ({ resource: { group: t.group, version: t.version, resource: t.resource }, kind: { group: t.group, version: t.version, kind: t.kind } })),
    resolveService,
  };
  for (const route of [...discoveryRoutes(), ...openApiRoutes()]) standIn.addRoute(route);
  for (const type of servedResources) standIn.serveResource(type);
  // Webhook configurations are written without admission (kube-apiserver never sends them to webhooks).
  for (const type of Object.values(webhookConfigurationTypes)) standIn.serveWritableResource(type);
  for (const type of servedResources) for (const route of writeRoutes(store, type, environment)) standIn.addRoute(route);

  const phaseOf = (configuration: WebhookConfiguration): Phase => (configuration.kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating');
  return {
    environment,
    putNamespace(name, labels = {}) {
      store.put(namespaceType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...labels, 'kubernetes.io/metadata.name': name } } });
    },
    putObject(object) {
      const type = servedResources.find((t) => apiVersionOf(t) === object.apiVersion && t.kind === object.kind);
      if (type === undefined) throw new Error(`the stand-in does not serve ${object.apiVersion} ${object.kind}`);
      store.put(type, object);
    },
    putWebhookConfiguration(configuration) {
      store.put(webhookConfigurationTypes[phaseOf(configuration)], configuration as unknown as KubeObject);
    },
  };
}
