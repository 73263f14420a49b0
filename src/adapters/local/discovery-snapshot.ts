// The built-in discovery snapshot: the resources a default kube-apiserver (1.34) serves, group by
// group in the order /api and /apis list them. It backs the local REST mapper when the
// cluster-state file carries no APIResourceList documents of its own, so `review` can map owner
// kinds offline. Subresources are listed too (as discovery does) and are skipped by the mapper.
import type { KubernetesVersion } from '../../api/feature-gates.ts';
import type { APIResource, APIResourceList } from './cluster-state.ts';

/** The release the snapshot is of; the local backend's feature gates follow it too. */
export const builtInDiscoveryVersion: KubernetesVersion = { major: 1, minor: 34 };

const namespaced = true;
const cluster = false;

/** A resource and its subresources, as discovery lists them. */
function resource(name: string, kind: string, isNamespaced: boolean, subresources: Record<string, string> = {}): APIResource[] {
  const main: APIResource = { name, namespaced: isNamespaced, kind };
  const subs = Object.entries(subresources).map(([sub, subKind]) => ({ name: `${name}/${sub}`, namespaced: isNamespaced, kind: subKind }));
  return [main, ...subs];
}

function list(groupVersion: string, ...resources: APIResource[][]): APIResourceList {
  return { apiVersion: 'v1', kind: 'APIResourceList', groupVersion, resources: resources.flat() };
}

export const builtInDiscovery: readonly APIResourceList[] = [
  list(
    'v1',
    resource('bindings', 'Binding', namespaced),
    resource('componentstatuses', 'ComponentStatus', cluster),
    resource('configmaps', 'ConfigMap', namespaced),
    resource('endpoints', 'Endpoints', namespaced),
    resource('events', 'Event', namespaced),
    resource('limitranges', 'LimitRange', namespaced),
    resource('namespaces', 'Namespace', cluster, { finalize: 'Namespace', status: 'Namespace' }),
    resource('nodes', 'Node', cluster, { proxy: 'NodeProxyOptions', status: 'Node' }),
    resource('persistentvolumeclaims', 'PersistentVolumeClaim', namespaced, { status: 'PersistentVolumeClaim' }),
    resource('persistentvolumes', 'PersistentVolume', cluster, { status: 'PersistentVolume' }),
    resource('pods', 'Pod', namespaced, {
      attach: 'PodAttachOptions',
      binding: 'Binding',
      ephemeralcontainers: 'Pod',
      eviction: 'Eviction',
      exec: 'PodExecOptions',
      log: 'Pod',
      portforward: 'PodPortForwardOptions',
      proxy: 'PodProxyOptions',
      resize: 'Pod',
      status: 'Pod',
    }),
    resource('podtemplates', 'PodTemplate', namespaced),
    resource('replicationcontrollers', 'ReplicationController', namespaced, { scale: 'Scale', status: 'ReplicationController' }),
    resource('resourcequotas', 'ResourceQuota', namespaced, { status: 'ResourceQuota' }),
    resource('secrets', 'Secret', namespaced),
    resource('serviceaccounts', 'ServiceAccount', namespaced, { token: 'TokenRequest' }),
    resource('services', 'Service', namespaced, { proxy: 'ServiceProxyOptions', status: 'Service' }),
  ),
  list('apiregistration.k8s.io/v1', resource('apiservices', 'APIService', cluster, { status: 'APIService' })),
  list(
    'apps/v1',
    resource('controllerrevisions', 'ControllerRevision', namespaced),
    resource('daemonsets', 'DaemonSet', namespaced, { status: 'DaemonSet' }),
    resource('deployments', 'Deployment', namespaced, { scale: 'Scale', status: 'Deployment' }),
    resource('replicasets', 'ReplicaSet', namespaced, { scale: 'Scale', status: 'ReplicaSet' }),
    resource('statefulsets', 'StatefulSet', namespaced, { scale: 'Scale', status: 'StatefulSet' }),
  ),
  list('events.k8s.io/v1', resource('events', 'Event', namespaced)),
  list(
    'authentication.k8s.io/v1',
    resource('selfsubjectreviews', 'SelfSubjectReview', cluster),
    resource('tokenreviews', 'TokenReview', cluster),
  ),
  list(
    'authorization.k8s.io/v1',
    resource('localsubjectaccessreviews', 'LocalSubjectAccessReview', namespaced),
    resource('selfsubjectaccessreviews', 'SelfSubjectAccessReview', cluster),
    resource('selfsubjectrulesreviews', 'SelfSubjectRulesReview', cluster),
    resource('subjectaccessreviews', 'SubjectAccessReview', cluster),
  ),
  list(
    'autoscaling/v2',
    resource('horizontalpodautoscalers', 'HorizontalPodAutoscaler', namespaced, { status: 'HorizontalPodAutoscaler' }),
  ),
  list(
    'autoscaling/v1',
    resource('horizontalpodautoscalers', 'HorizontalPodAutoscaler', namespaced, { status: 'HorizontalPodAutoscaler' }),
  ),
  list(
    'batch/v1',
    resource('cronjobs', 'CronJob', namespaced, { status: 'CronJob' }),
    resource('jobs', 'Job', namespaced, { status: 'Job' }),
  ),
  list(
    'certificates.k8s.io/v1',
    resource('certificatesigningrequests', 'CertificateSigningRequest', cluster, {
      approval: 'CertificateSigningRequest',
      status: 'CertificateSigningRequest',
    }),
  ),
  list(
    'networking.k8s.io/v1',
    resource('ingressclasses', 'IngressClass', cluster),
    resource('ingresses', 'Ingress', namespaced, { status: 'Ingress' }),
    resource('ipaddresses', 'IPAddress', cluster),
    resource('networkpolicies', 'NetworkPolicy', namespaced),
    resource('servicecidrs', 'ServiceCIDR', cluster, { status: 'ServiceCIDR' }),
  ),
  list('policy/v1', resource('poddisruptionbudgets', 'PodDisruptionBudget', namespaced, { status: 'PodDisruptionBudget' })),
  list(
    'rbac.authorization.k8s.io/v1',
    resource('clusterrolebindings', 'ClusterRoleBinding', cluster),
    resource('clusterroles', 'ClusterRole', cluster),
    resource('rolebindings', 'RoleBinding', namespaced),
    resource('roles', 'Role', namespaced),
  ),
  list(
    'storage.k8s.io/v1',
    resource('csidrivers', 'CSIDriver', cluster),
    resource('csinodes', 'CSINode', cluster),
    resource('csistoragecapacities', 'CSIStorageCapacity', namespaced),
    resource('storageclasses', 'StorageClass', cluster),
    resource('volumeattachments', 'VolumeAttachment', cluster, { status: 'VolumeAttachment' }),
    resource('volumeattributesclasses', 'VolumeAttributesClass', cluster),
  ),
  list(
    'admissionregistration.k8s.io/v1',
    resource('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', cluster),
    resource('validatingadmissionpolicies', 'ValidatingAdmissionPolicy', cluster, { status: 'ValidatingAdmissionPolicy' }),
    resource('validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', cluster),
    resource('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', cluster),
  ),
  list(
    'apiextensions.k8s.io/v1',
    resource('customresourcedefinitions', 'CustomResourceDefinition', cluster, { status: 'CustomResourceDefinition' }),
  ),
  list('scheduling.k8s.io/v1', resource('priorityclasses', 'PriorityClass', cluster)),
  list('coordination.k8s.io/v1', resource('leases', 'Lease', namespaced)),
  list('node.k8s.io/v1', resource('runtimeclasses', 'RuntimeClass', cluster)),
  list('discovery.k8s.io/v1', resource('endpointslices', 'EndpointSlice', namespaced)),
  list(
    'flowcontrol.apiserver.k8s.io/v1',
    resource('flowschemas', 'FlowSchema', cluster, { status: 'FlowSchema' }),
    resource('prioritylevelconfigurations', 'PriorityLevelConfiguration', cluster, { status: 'PriorityLevelConfiguration' }),
  ),
  list(
    'resource.k8s.io/v1',
    resource('deviceclasses', 'DeviceClass', cluster),
    resource('resourceclaims', 'ResourceClaim', namespaced, { status: 'ResourceClaim' }),
    resource('resourceclaimtemplates', 'ResourceClaimTemplate', namespaced),
    resource('resourceslices', 'ResourceSlice', cluster),
  ),
];
