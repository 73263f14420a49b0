// The pod a controller creates from a pod template (GetPodFromTemplate and createPods in
// pkg/controller/controller_utils.go): the template's labels, annotations and finalizers, a
// generateName from the owner's name, the controller reference, the template's spec, and the
// owner's namespace.
import type { KubeObject, OwnerReference } from '../api/types.ts';
import { isPlainObject } from '../util/plain-object.ts';
import { podsPrefix } from './names.ts';

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec?: Record<string, unknown>;
}

export function podFromTemplate(template: PodTemplate, owner: KubeObject, ref: OwnerReference): KubeObject {
  const metadata = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: podsPrefix(owner.metadata?.name ?? ''),
      namespace: owner.metadata?.namespace ?? '',
      labels: { ...metadata.labels },
      annotations: { ...metadata.annotations },
      finalizers: [...(metadata.finalizers ?? [])],
      ownerReferences: [ref],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}

/** The pod template at spec.template (or `at`), or undefined when the object has none. */
export function templateOf(object: KubeObject, at: 'template' | 'jobTemplate' = 'template'): PodTemplate | undefined {
  const spec = object.spec;
  if (!isPlainObject(spec) || !isPlainObject(spec[at])) return undefined;
  return spec[at] as PodTemplate;
}
