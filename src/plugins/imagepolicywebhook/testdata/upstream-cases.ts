// Upstream plugin/pkg/admission/imagepolicy config_test.go and admission_test.go, every row, as data.
// Pods are upstream's api.Pod values in their v1 JSON spelling. Upstream's mock backend (mockService)
// allows what it is told to, but always allows a pod whose first image is "good" and never one with
// a "bad" image, and answers a denial with the reason "not allowed".
//
// What changes in the port: upstream's test kubeconfig names no cluster, user or context (clientcmd
// picks the unnamed ones); @kubernetes/client-node refuses unnamed entries, so ours names them and
// sets current-context. Certificates are made by the test, as upstream's gencerts.sh makes its own.
import { limits } from '../configuration.ts';

export interface PodJson {
  readonly metadata?: { annotations?: Record<string, string> };
  readonly spec: {
    readonly containers?: readonly { image: string }[];
    readonly initContainers?: readonly { image: string }[];
    readonly ephemeralContainers?: readonly { image: string }[];
    readonly [key: string]: unknown;
  };
}

/** goodPod(image): one container with that image. */
export function goodPod(image: string): PodJson {
  return {
    spec: { serviceAccountName: 'default', securityContext: {}, containers: [{ image, securityContext: {} } as { image: string }] },
  };
}

function pod(lists: { containers?: string[]; initContainers?: string[]; ephemeralContainers?: string[] }): PodJson {
  const containers = (images: string[] | undefined) => images?.map((image) => ({ image, securityContext: {} }) as { image: string });
  return {
    spec: {
      serviceAccountName: 'default',
      securityContext: {},
      ...(lists.containers ? { containers: containers(lists.containers) } : {}),
      ...(lists.initContainers ? { initContainers: containers(lists.initContainers) } : {}),
      ...(lists.ephemeralContainers ? { ephemeralContainers: containers(lists.ephemeralContainers) } : {}),
    },
  };
}

// --- config_test.go TestConfigNormalization: the decoded durations (file units) and the normalized ones (ns).

export interface NormalizationRow {
  readonly test: string;
  readonly config: { allowTTL: bigint; denyTTL: bigint; retryBackoff: bigint };
  /** undefined when normalization must fail. */
  readonly normalized?: { allowTTL: bigint; denyTTL: bigint; retryBackoff: bigint };
}

const s = 1_000_000_000n;
const ms = 1_000_000n;

export const configNormalizationCases: readonly NormalizationRow[] = [
  {
    test: 'config within normal ranges',
    config: {
      allowTTL: (limits.minAllowTTL + limits.maxAllowTTL) / 2n / s,
      denyTTL: (limits.minDenyTTL + limits.maxDenyTTL) / 2n / s,
      retryBackoff: (limits.minRetryBackoff + limits.maxRetryBackoff) / 2n / ms,
    },
    normalized: {
      allowTTL: ((limits.minAllowTTL + limits.maxAllowTTL) / 2n / s) * s,
      denyTTL: ((limits.minDenyTTL + limits.maxDenyTTL) / 2n / s) * s,
      // Upstream's expectation: the mean itself, which its millisecond truncation happens to keep.
      retryBackoff: (limits.minRetryBackoff + limits.maxRetryBackoff) / 2n,
    },
  },
  {
    test: 'config below normal ranges, error',
    config: { allowTTL: limits.minAllowTTL - 1n, denyTTL: limits.minDenyTTL - 1n, retryBackoff: limits.minRetryBackoff - 1n },
  },
  {
    test: 'config above normal ranges, error',
    config: { allowTTL: 1n + limits.maxAllowTTL, denyTTL: 1n + limits.maxDenyTTL, retryBackoff: 1n + limits.maxRetryBackoff },
  },
  {
    test: 'config wants default values',
    config: { allowTTL: 0n, denyTTL: 0n, retryBackoff: 0n },
    normalized: { allowTTL: limits.defaultAllowTTL, denyTTL: limits.defaultDenyTTL, retryBackoff: limits.defaultRetryBackoff },
  },
  {
    test: 'config wants disabled values',
    config: { allowTTL: -1n, denyTTL: -1n, retryBackoff: -1n },
    normalized: { allowTTL: 0n, denyTTL: 0n, retryBackoff: 0n },
  },
  {
    test: 'config within normal ranges for min values',
    config: { allowTTL: limits.minAllowTTL / s, denyTTL: limits.minDenyTTL / s, retryBackoff: limits.minRetryBackoff },
    normalized: { allowTTL: limits.minAllowTTL, denyTTL: limits.minDenyTTL, retryBackoff: limits.minRetryBackoff * ms },
  },
  {
    test: 'config within normal ranges for max values',
    config: { allowTTL: limits.maxAllowTTL / s, denyTTL: limits.maxDenyTTL / s, retryBackoff: limits.maxRetryBackoff / ms },
    normalized: { allowTTL: limits.maxAllowTTL, denyTTL: limits.maxDenyTTL, retryBackoff: limits.maxRetryBackoff },
  },
];

// --- TestNewFromConfig: kubeconfig files naming the CA, client certificate and key files.

export interface KubeConfigFileRow {
  readonly msg: string;
  /** The kubeconfig, {{CA}}, {{Cert}} and {{Key}} standing for the files' paths. */
  readonly kubeConfig: string;
  readonly wantErr: boolean;
}

const clusters = (foobarCA: string, barfooCA: string) => `
clusters:
- cluster:
    certificate-authority: ${foobarCA}
    server: https://admission.example.com
  name: foobar
- cluster:
    certificate-authority: ${barfooCA}
    server: https://admission.example.com
  name: barfoo
users:
- name: a name
  user:
    client-certificate: {{Cert}}
    client-key: {{Key}}
`;

export const newFromConfigCases: readonly KubeConfigFileRow[] = [
  {
    msg: 'a single cluster and single user',
    kubeConfig: `
clusters:
- cluster:
    certificate-authority: {{CA}}
    server: https://admission.example.com
  name: foobar
users:
- name: a cluster
  user:
    client-certificate: {{Cert}}
    client-key: {{Key}}
`,
    wantErr: true,
  },
  { msg: 'multiple clusters with no context', kubeConfig: clusters('{{CA}}', 'a bad certificate path'), wantErr: true },
  {
    msg: 'multiple clusters with a context',
    kubeConfig: `${clusters('a bad certificate path', '{{CA}}')}contexts:
- name: default
  context:
    cluster: barfoo
    user: a name
current-context: default
`,
    wantErr: false,
  },
  {
    msg: 'cluster with bad certificate path specified',
    kubeConfig: `${clusters('a bad certificate path', '{{CA}}')}contexts:
- name: default
  context:
    cluster: foobar
    user: a name
current-context: default
`,
    wantErr: true,
  },
];

/** TestNewFromConfig's configuration (defaultConfigTmplJSON): TTLs and backoff 500, defaultAllow. */
export const newFromConfigSettings = { allowTTL: 500, denyTTL: 500, retryBackoff: 500, defaultAllow: true };

// --- TestTLSConfig: which side holds which certificate. "ca" is the CA both certificates come from;
// "badCA" another; a server with no certificate of ours serves one from a CA nobody is given
// (upstream: httptest's built-in certificate).

export type Credential = 'ca' | 'badCA';

export interface TlsRow {
  readonly test: string;
  readonly clientCert: boolean;
  readonly clientCA?: Credential;
  readonly serverCert: boolean;
  /** The CA the server verifies client certificates against (and then requires one). */
  readonly serverCA?: Credential;
  readonly wantAllowed: boolean;
  readonly wantErr: boolean;
}

export const tlsConfigCases: readonly TlsRow[] = [
  {
    test: 'TLS setup between client and server',
    clientCert: true,
    clientCA: 'ca',
    serverCert: true,
    serverCA: 'ca',
    wantAllowed: true,
    wantErr: false,
  },
  { test: 'Server does not require client auth', clientCert: false, clientCA: 'ca', serverCert: true, wantAllowed: true, wantErr: false },
  {
    test: 'Server does not require client auth, client provides it',
    clientCert: true,
    clientCA: 'ca',
    serverCert: true,
    wantAllowed: true,
    wantErr: false,
  },
  { test: 'Client does not trust server', clientCert: true, serverCert: true, wantAllowed: false, wantErr: true },
  {
    test: 'Server does not trust client',
    clientCert: true,
    clientCA: 'ca',
    serverCert: true,
    serverCA: 'badCA',
    wantAllowed: false,
    wantErr: true,
  },
  // Upstream: the plugin does not support insecure configurations.
  { test: 'Server is using insecure connection', clientCert: false, serverCert: false, wantAllowed: false, wantErr: true },
];

// --- TestWebhookCache: the backend allows everything; each step sets its HTTP status, then asks.
// Errors are not cached, answers are (cache time 200 s).

export interface CacheStep {
  readonly statusCode: number;
  readonly expectedErr: boolean;
  readonly expectedAuthorized: boolean;
  readonly expectedCached: boolean;
}

export const webhookCacheCases: readonly { readonly image: string; readonly steps: readonly CacheStep[] }[] = [
  {
    image: 'test',
    steps: [
      { statusCode: 500, expectedErr: true, expectedAuthorized: false, expectedCached: false },
      { statusCode: 404, expectedErr: true, expectedAuthorized: false, expectedCached: false },
      { statusCode: 403, expectedErr: true, expectedAuthorized: false, expectedCached: false },
      { statusCode: 401, expectedErr: true, expectedAuthorized: false, expectedCached: false },
      { statusCode: 200, expectedErr: false, expectedAuthorized: true, expectedCached: false },
      { statusCode: 500, expectedErr: false, expectedAuthorized: true, expectedCached: true },
    ],
  },
  // For a different request, the webhook is called again.
  {
    image: 'test2',
    steps: [
      { statusCode: 500, expectedErr: true, expectedAuthorized: false, expectedCached: false },
      { statusCode: 200, expectedErr: false, expectedAuthorized: true, expectedCached: false },
      { statusCode: 500, expectedErr: false, expectedAuthorized: true, expectedCached: true },
    ],
  },
];

export const webhookCacheSeconds = 200;

// --- TestContainerCombinations (cache time 0: the defaults; the backend neither allows nor denies by default).

export interface ContainerRow {
  readonly test: string;
  readonly pod: PodJson;
  readonly wantAllowed: boolean;
  readonly subresource: '' | 'ephemeralcontainers';
  readonly operation: 'CREATE' | 'UPDATE';
}

export const containerCombinationCases: readonly ContainerRow[] = [
  { test: 'Single container allowed', pod: goodPod('good'), wantAllowed: true, subresource: '', operation: 'CREATE' },
  { test: 'Single container denied', pod: goodPod('bad'), wantAllowed: false, subresource: '', operation: 'CREATE' },
  {
    test: 'One good container, one bad',
    pod: pod({ containers: ['bad', 'good'] }),
    wantAllowed: false,
    subresource: '',
    operation: 'CREATE',
  },
  { test: 'Multiple good containers', pod: pod({ containers: ['good', 'good'] }), wantAllowed: true, subresource: '', operation: 'CREATE' },
  { test: 'Multiple bad containers', pod: pod({ containers: ['bad', 'bad'] }), wantAllowed: false, subresource: '', operation: 'CREATE' },
  {
    test: 'Good container, bad init container',
    pod: pod({ containers: ['good'], initContainers: ['bad'] }),
    wantAllowed: false,
    subresource: '',
    operation: 'CREATE',
  },
  {
    test: 'Bad container, good init container',
    pod: pod({ containers: ['bad'], initContainers: ['good'] }),
    wantAllowed: false,
    subresource: '',
    operation: 'CREATE',
  },
  {
    test: 'Good container, good init container',
    pod: pod({ containers: ['good'], initContainers: ['good'] }),
    wantAllowed: true,
    subresource: '',
    operation: 'CREATE',
  },
  {
    test: 'Good container, good init container, bad ephemeral container when updating ephemeralcontainers subresource',
    pod: pod({ containers: ['good'], initContainers: ['good'], ephemeralContainers: ['bad'] }),
    wantAllowed: false,
    subresource: 'ephemeralcontainers',
    operation: 'UPDATE',
  },
  {
    test: "Good container, good init container, bad ephemeral container when updating subresource=='' which sets initContainer and container only",
    pod: pod({ containers: ['good'], initContainers: ['good'], ephemeralContainers: ['bad'] }),
    wantAllowed: true,
    subresource: '',
    operation: 'UPDATE',
  },
  {
    test: "Bad container, good ephemeral container when updating subresource=='ephemeralcontainers' which sets ephemeralcontainers only",
    pod: pod({ containers: ['bad'], ephemeralContainers: ['good'] }),
    wantAllowed: true,
    subresource: 'ephemeralcontainers',
    operation: 'UPDATE',
  },
  {
    test: 'Good ephemeral container',
    pod: pod({ ephemeralContainers: ['good'] }),
    wantAllowed: true,
    subresource: 'ephemeralcontainers',
    operation: 'UPDATE',
  },
];

// --- TestDefaultAllow: the backend answers 500 to everything.

export interface DefaultAllowRow {
  readonly test: string;
  readonly pod: PodJson;
  readonly defaultAllow: boolean;
  readonly wantAllowed: boolean;
  readonly wantFailOpen: boolean;
}

export const defaultAllowCases: readonly DefaultAllowRow[] = [
  {
    test: 'DefaultAllow = true, backend unreachable, bad image',
    pod: goodPod('bad'),
    defaultAllow: true,
    wantAllowed: true,
    wantFailOpen: true,
  },
  {
    test: 'DefaultAllow = true, backend unreachable, good image',
    pod: goodPod('good'),
    defaultAllow: true,
    wantAllowed: true,
    wantFailOpen: true,
  },
  {
    test: 'DefaultAllow = false, backend unreachable, good image',
    pod: goodPod('good'),
    defaultAllow: false,
    wantAllowed: false,
    wantFailOpen: false,
  },
  {
    test: 'DefaultAllow = false, backend unreachable, bad image',
    pod: goodPod('bad'),
    defaultAllow: false,
    wantAllowed: false,
    wantFailOpen: false,
  },
];

// --- TestAnnotationFiltering: the pod's annotations and those the backend is shown (defaultAllow).

export const annotationFilteringCases: readonly {
  readonly test: string;
  readonly annotations: Record<string, string>;
  readonly outAnnotations: Record<string, string>;
}[] = [
  { test: 'all annotations filtered out', annotations: { test: 'test', another: 'annotation', '': '' }, outAnnotations: {} },
  {
    test: 'image-policy annotations allowed',
    annotations: {
      'my.image-policy.k8s.io/test': 'test',
      'other.image-policy.k8s.io/test2': 'annotation',
      test: 'test',
      another: 'another',
      '': '',
    },
    outAnnotations: { 'my.image-policy.k8s.io/test': 'test', 'other.image-policy.k8s.io/test2': 'annotation' },
  },
];

// --- TestReturnedAnnotationAdd: the backend's auditAnnotations and the audit annotations upstream adds.

export const returnedAnnotationCases: readonly {
  readonly test: string;
  readonly pod: PodJson;
  /** null: the backend sends none (Go's nil map). */
  readonly verifierAnnotations: Record<string, string> | null;
  readonly expectedAnnotations: Record<string, string>;
  readonly wantErr: boolean;
}[] = [
  {
    test: 'Add valid response annotations',
    pod: goodPod('good'),
    verifierAnnotations: { 'foo-test': 'true', 'bar-test': 'false' },
    expectedAnnotations: {
      'imagepolicywebhook.image-policy.k8s.io/foo-test': 'true',
      'imagepolicywebhook.image-policy.k8s.io/bar-test': 'false',
    },
    wantErr: false,
  },
  { test: 'No returned annotations are ignored', pod: goodPod('good'), verifierAnnotations: {}, expectedAnnotations: {}, wantErr: false },
  { test: 'Handles nil annotations', pod: goodPod('good'), verifierAnnotations: null, expectedAnnotations: {}, wantErr: false },
  {
    test: 'Adds annotations for bad request',
    pod: pod({ containers: ['bad'] }),
    verifierAnnotations: { 'foo-test': 'false' },
    expectedAnnotations: { 'imagepolicywebhook.image-policy.k8s.io/foo-test': 'false' },
    wantErr: true,
  },
];
