// A RuntimeClass can say where its handler runs (scheduling.nodeSelector) and which taints those
// nodes carry (scheduling.tolerations); pods using it inherit both, and a pod that asks for a
// different value of the same node label cannot run there at all (upstream setScheduling).

import type { Attributes } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import type { Pod } from '../../api/core.ts';
import { mergeTolerations } from '../../api/tolerations/merge.ts';
import type { RuntimeClass } from '../../ports/lookups.ts';

export function setScheduling(attributes: Attributes, pod: Pod, runtimeClass: RuntimeClass | undefined): void {
  const scheduling = runtimeClass?.scheduling;
  if (scheduling === undefined || scheduling === null) return;

  const runtimeNodeSelector = scheduling.nodeSelector ?? undefined;
  let nodeSelector = pod.spec?.nodeSelector ?? undefined;
  if (nodeSelector === undefined) {
    nodeSelector = runtimeNodeSelector === undefined ? undefined : { ...runtimeNodeSelector };
  } else {
    nodeSelector = { ...nodeSelector };
    for (const [key, runtimeClassValue] of Object.entries(runtimeNodeSelector ?? {})) {
      const podValue = nodeSelector[key];
      if (podValue !== undefined && podValue !== runtimeClassValue) {
        throw forbidden(
          attributes,
          `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${runtimeClassValue}; pod.spec.nodeSelector[${key}] = ${podValue}`,
        );
      }
      nodeSelector[key] = runtimeClassValue;
    }
  }

  const podTolerations = pod.spec?.tolerations ?? [];
  const tolerations = mergeTolerations(
    podTolerations,
    (scheduling.tolerations ?? []).map((t) => ({ ...t })),
  );

  const spec = { ...pod.spec };
  if (nodeSelector !== undefined) spec.nodeSelector = nodeSelector;
  // Upstream leaves nil when both lists are empty; an empty list on the wire means the same.
  if (tolerations.length > 0) spec.tolerations = tolerations;
  pod.spec = spec;
}
