// kube-apiserver's admission plugins as the release admission-chain is built and tested against
// names them (pkg/kubeapiserver/options/plugins.go: AllOrderedPlugins, and DefaultOffAdmissionPlugins'
// complement), and, for those this webhook does not run, why. `migrate` reads a self-managed
// kube-apiserver's flags against this list, as kube-apiserver itself would.

/** The Kubernetes minor release these lists come from. */
export const upstreamRelease = '1.37';

/** Every plugin kube-apiserver registers, in its order. */
export const upstreamPlugins: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PodGroupProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'NodeDeclaredFeatureValidator',
  'PodResizeValidator',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** The plugins kube-apiserver runs unless --disable-admission-plugins names them. */
export const upstreamDefaultOn: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultStorageClass',
  'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'StorageObjectInUseProtection',
  'PodGroupProtection',
  'Priority',
  'TaintNodesByCondition',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodSecurity',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'ValidatingAdmissionPolicy',
  'NodeDeclaredFeatureValidator',
  'PodResizeValidator',
]);

/**
 * Why a plugin that admission-chain does not run is not carried over. Plugins on by default are
 * every managed platform's too, so only the ones kube-apiserver leaves off need a reason of their own.
 */
export const notReproduced: Readonly<Record<string, string>> = {
  AlwaysAdmit: 'deprecated; it admits everything, which is what no plugin does',
  AlwaysDeny: 'deprecated; it denies every request, which no cluster can run on',
  NamespaceAutoProvision:
    'creates a namespace as a side effect of a write into it; a webhook must declare no side effects, and the namespace would outlive a dry run',
  NamespaceExists:
    "refuses writes into a namespace that does not exist; kube-apiserver's NamespaceLifecycle, on by default on every platform, refuses them too",
  NodeRestriction:
    "limits what each kubelet may write from the node's own credentials; it is part of the platform's node authorization, which the platform runs",
};

/** The reason for a plugin on by default that admission-chain does not run. */
export const platformDefault = 'on by default in kube-apiserver, so the managed platform runs its own';
