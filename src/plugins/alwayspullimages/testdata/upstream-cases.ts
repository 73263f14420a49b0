// Upstream plugin/pkg/admission/alwayspullimages/admission_test.go TestAdmission, TestValidate,
// TestOtherResources and TestUpdatePod, every row, as data: the plugin's unit test and the oracle's
// replay both run them. Go's Pod structs are written as the JSON pods a webhook receives (zero-valued
// Go fields are simply absent).
import type { Container, Pod, PodSpec, Volume } from '../../../api/core.ts';

export function container(name: string, image: string, imagePullPolicy?: string): Container {
  return imagePullPolicy === undefined ? { name, image } : { name, image, imagePullPolicy };
}

/** An image volume as upstream writes it: a pull policy and no reference ("" stands for Go's zero value). */
export function imageVolume(name: string, pullPolicy: string): Volume {
  return { name, image: { pullPolicy } };
}

export function pod(name: string, namespace: string, spec: PodSpec, annotations?: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: annotations ? { name, namespace, annotations } : { name, namespace },
    spec,
  };
}

const everyPolicy = (prefix: string): Container[] => [
  container(`${prefix}1`, 'image'),
  container(`${prefix}2`, 'image', 'Never'),
  container(`${prefix}3`, 'image', 'IfNotPresent'),
  container(`${prefix}4`, 'image', 'Always'),
];

/** TestAdmission: a CREATE, after which every init container, container and image volume pulls Always. */
export interface AdmitCase {
  name: string;
  pod: Pod;
}

export const admitCases: AdmitCase[] = [
  {
    name: 'TestAdmission',
    pod: pod('123', 'test', {
      initContainers: everyPolicy('init'),
      containers: everyPolicy('ctr'),
      volumes: [imageVolume('volume1', 'Never'), imageVolume('volume2', 'IfNotPresent'), imageVolume('volume3', 'Always')],
    }),
  },
];

/** TestValidate: Validate alone (no Admit before it) on a CREATE, and the aggregate error it gives. */
export interface ValidateCase {
  name: string;
  pod: Pod;
  expectedError: string;
}

const unsupported = (field: string, value: string) =>
  `pods "123" is forbidden: ${field}: Unsupported value: "${value}": supported values: "Always"`;

export const validateCases: ValidateCase[] = [
  {
    name: 'TestValidate',
    pod: pod('123', 'test', {
      initContainers: everyPolicy('init'),
      containers: everyPolicy('ctr'),
      volumes: [
        imageVolume('volume1', ''),
        imageVolume('volume2', 'Never'),
        imageVolume('volume3', 'IfNotPresent'),
        imageVolume('volume4', 'Always'),
      ],
    }),
    expectedError: `[${[
      unsupported('spec.initContainers[0].imagePullPolicy', ''),
      unsupported('spec.initContainers[1].imagePullPolicy', 'Never'),
      unsupported('spec.initContainers[2].imagePullPolicy', 'IfNotPresent'),
      unsupported('spec.containers[0].imagePullPolicy', ''),
      unsupported('spec.containers[1].imagePullPolicy', 'Never'),
      unsupported('spec.containers[2].imagePullPolicy', 'IfNotPresent'),
      unsupported('spec.volumes[0].image.pullPolicy', ''),
      unsupported('spec.volumes[1].image.pullPolicy', 'Never'),
      unsupported('spec.volumes[2].image.pullPolicy', 'IfNotPresent'),
    ].join(', ')}]`,
  },
];

/** TestOtherResources: a CREATE under another kind, resource or subresource, as Admit sees it. */
export interface OtherResourceCase {
  name: string;
  kind: string;
  resource: string;
  subresource: string;
  object: Pod | { apiVersion: string; kind: string; metadata: object; spec: object };
  /** Admit fails; otherwise it leaves the container's Never alone. */
  expectError: boolean;
}

const otherResourcesPod = () => pod('testname', 'testnamespace', { containers: [container('ctr2', 'image', 'Never')] });

export const otherResourceCases: OtherResourceCase[] = [
  { name: 'non-pod resource', kind: 'Foo', resource: 'foos', subresource: '', object: otherResourcesPod(), expectError: false },
  { name: 'pod subresource', kind: 'Pod', resource: 'pods', subresource: 'exec', object: otherResourcesPod(), expectError: false },
  {
    name: 'non-pod object',
    kind: 'Pod',
    resource: 'pods',
    subresource: '',
    object: { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: {} },
    expectError: true,
  },
];

/**
 * TestUpdatePod: both rows carry the subresource "finalizers" and operation Create (as upstream wrote
 * them), so Admit skips both as subresource requests.
 */
export interface UpdatePodCase {
  name: string;
  object: Pod;
  oldObject: Pod;
  subresource: string;
  /** The pod keeps its IfNotPresent; otherwise only no error is expected. */
  expectIgnore: boolean;
}

const ifNotPresentPod = (image: string, annotations?: Record<string, string>) =>
  pod('testname', 'testnamespace', { containers: [container('ctr2', image, 'IfNotPresent')] }, annotations);

export const updatePodCases: UpdatePodCase[] = [
  {
    name: 'update IfNotPresent pod annotations',
    object: ifNotPresentPod('image', { test: 'test' }),
    oldObject: ifNotPresentPod('image'),
    subresource: 'finalizers',
    expectIgnore: true,
  },
  {
    name: 'update IfNotPresent pod image',
    object: ifNotPresentPod('image2', { test: 'test' }),
    oldObject: ifNotPresentPod('image'),
    subresource: 'finalizers',
    expectIgnore: false,
  },
];
