// Builds Attributes directly, the way upstream's tests call admission.NewAttributesRecord.
import type { Attributes } from '../../admission/attributes.ts';
import type { Operation } from '../../admission/operation.ts';
import type { KubeObject } from '../../api/types.ts';

export interface AttributesInput {
  operation: Operation;
  object: unknown;
  oldObject?: unknown;
  name?: string;
  namespace?: string;
  kind?: string;
  group?: string;
  resource?: string;
  subresource?: string;
}

export function attributesFor(input: AttributesInput): Attributes {
  return {
    uid: 'uid-1',
    operation: input.operation,
    // Upstream's tests use the version "version"; no plugin reads it.
    kind: { group: input.group ?? '', version: 'version', kind: input.kind ?? 'Pod' },
    resource: { group: input.group ?? '', version: 'version', resource: input.resource ?? 'pods' },
    subresource: input.subresource ?? '',
    namespace: input.namespace ?? '',
    name: input.name ?? '',
    object: input.object as KubeObject | undefined,
    oldObject: input.oldObject as KubeObject | undefined,
    userInfo: { username: 'tester' },
    dryRun: false,
    options: undefined,
  };
}

export const noContext = {
  signal: new AbortController().signal,
  annotate: () => {},
  warn: () => {},
};
