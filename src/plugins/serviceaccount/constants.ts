// The names upstream's ServiceAccount plugin fixes (plugin/pkg/admission/serviceaccount, pkg/serviceaccount).

export const pluginName = 'ServiceAccount';

/** The service account a pod gets when it names none. */
export const defaultServiceAccountName = 'default';

/** On a ServiceAccount: "true" (Go strconv.ParseBool) limits pods to the secrets the account lists. */
export const enforceMountableSecretsAnnotation = 'kubernetes.io/enforce-mountable-secrets';

/** Prefix of the projected token volume's generated name; an existing volume with it is reused. */
export const serviceAccountVolumeNamePrefix = 'kube-api-access-';

/** Where the token, the cluster CA and the namespace file are mounted in every container. */
export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Kubelet marks the API-server copy of a static pod with this annotation (any value). */
export const mirrorPodAnnotationKey = 'kubernetes.io/config.mirror';

/**
 * pkg/serviceaccount WarnOnlyBoundTokenExpirationSeconds: one hour and seven seconds, so the
 * token issuer can tell auto-mounted tokens apart and extend them in warn-only mode.
 */
export const warnOnlyBoundTokenExpirationSeconds = 3607;

/** corev1.ProjectedVolumeSourceDefaultMode (0644), set explicitly so v1 defaulting changes nothing. */
export const projectedVolumeSourceDefaultMode = 0o644;

/** Live GET attempts on a cache miss: `default` races the controller that creates it. */
export const defaultServiceAccountAttempts = 10;
export const otherServiceAccountAttempts = 1;
