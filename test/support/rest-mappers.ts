// REST mappers for plugin tests: a fixed table of mappings in memory, one that records what it is
// asked, and upstream's neverReturningRESTMapper.
import type { RestMapper, RestMapping } from '../../src/ports/rest-mapper.ts';

/** One resource a fixed mapper knows: its group, version, kind, plural and scope. */
export interface KnownResource {
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
}

/**
 * Mappings from the table, in its order, for the group and kind asked, narrowed to the versions
 * asked ("" or none: every version); a kind it does not know is an error naming it.
 */
export function fixedRestMapper(known: readonly KnownResource[]): RestMapper {
  return {
    async mappingsFor({ group, kind }, versions) {
      const wanted = versions.filter((v) => v !== '');
      const found = known.filter((r) => r.group === group && r.kind === kind && (wanted.length === 0 || wanted.includes(r.version)));
      if (found.length === 0)
        throw new Error(`this test knows no kind ${kind} in ${group === '' ? 'the core group' : group} ${wanted.join(', ')}`);
      return found.map((r) => ({
        resource: { group: r.group, version: r.version, resource: r.resource },
        groupVersionKind: { group: r.group, version: r.version, kind: r.kind },
        scope: r.namespaced ? 'namespace' : 'root',
      }));
    },
  };
}

export interface RecordingRestMapper extends RestMapper {
  readonly calls: Array<{ group: string; kind: string; versions: readonly string[] }>;
}

export function recordingRestMapper(inner: RestMapper): RecordingRestMapper {
  const calls: RecordingRestMapper['calls'] = [];
  return {
    calls,
    mappingsFor(groupKind, versions, signal): Promise<RestMapping[]> {
      calls.push({ ...groupKind, versions: [...versions] });
      return inner.mappingsFor(groupKind, versions, signal);
    },
  };
}

/** upstream's neverReturningRESTMapper: a call would hang the request, so the test must not make one. */
export const neverReturningRestMapper: RestMapper = {
  mappingsFor: () => new Promise<RestMapping[]>(() => {}),
};
