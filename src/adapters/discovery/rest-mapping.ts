// Kind → resource mappings from discovery, with the semantics of client-go's
// NewDiscoveryRESTMapper: one table per group version (a MultiRESTMapper of DefaultRESTMappers),
// subresources skipped, and RESTMappings(groupKind, versions...) collecting every table's answer.
import type { RestMapping } from '../../ports/rest-mapper.ts';
import { RestScope } from '../../ports/rest-mapper.ts';
import type { DiscoveredGroup } from './documents.ts';
import { NoKindMatchError } from './errors.ts';

interface KindEntry {
  resource: string;
  scope: RestScope;
}

/** One DefaultRESTMapper: the kinds of a single group version. */
interface GroupVersionTable {
  group: string;
  version: string;
  kinds: Map<string, KindEntry>;
}

export class DiscoveryRestMapping {
  /** Tables by group, in discovery order: a table of another group can never match. */
  readonly #byGroup = new Map<string, GroupVersionTable[]>();

  constructor(groups: readonly DiscoveredGroup[]) {
    for (const group of groups) {
      for (const v of group.versions) {
        const table = tableFor(group.name, v.version, v.resources);
        const tables = this.#byGroup.get(table.group);
        if (tables) tables.push(table);
        else this.#byGroup.set(table.group, [table]);
      }
    }
  }

  /** True when any group version knows this group and kind (in any version). */
  knowsGroupKind(group: string, kind: string): boolean {
    return (this.#byGroup.get(group) ?? []).some((t) => t.kinds.has(kind));
  }

  /**
   * upstream MultiRESTMapper.RESTMappings: "no match" from one table is skipped, not fatal. The
   * per-table no-match is a plain empty answer here; only the final miss builds an error (building
   * one per table was most of the cost of a per-reference check).
   */
  mappingsFor(groupKind: { group: string; kind: string }, versions: readonly string[]): RestMapping[] {
    const all: RestMapping[] = [];
    for (const table of this.#byGroup.get(groupKind.group) ?? []) all.push(...tableMappings(table, groupKind, versions));
    if (all.length === 0) throw new NoKindMatchError(groupKind, versions);
    return all;
  }
}

function tableFor(
  group: string,
  version: string,
  resources: readonly { name: string; kind: string; namespaced: boolean }[],
): GroupVersionTable {
  const kinds = new Map<string, KindEntry>();
  for (const resource of resources) {
    // "pods/status" and friends are subresources: they never name a kind's resource.
    if (resource.name.includes('/')) continue;
    const scope = resource.namespaced ? RestScope.Namespace : RestScope.Root;
    kinds.set(resource.kind.toLowerCase(), { resource: resource.name, scope });
    kinds.set(resource.kind, { resource: resource.name, scope });
    // Upstream also registers "<Kind>List" with a guessed plural; kept for identical answers.
    kinds.set(`${resource.kind}List`, { resource: guessPluralResource(`${resource.kind}List`), scope });
  }
  kinds.set('List', { resource: guessPluralResource('List'), scope: RestScope.Root });
  return { group, version, kinds };
}

/** One DefaultRESTMapper.RESTMappings; [] where upstream answers "no match". */
function tableMappings(table: GroupVersionTable, groupKind: { group: string; kind: string }, versions: readonly string[]): RestMapping[] {
  const candidates: string[] = [];
  let hadVersion = false;
  for (const version of versions) {
    if (version === '' || version === '__internal') continue;
    hadVersion = true;
    if (table.group === groupKind.group && table.version === version && table.kinds.has(groupKind.kind)) {
      candidates.push(version);
      break;
    }
  }
  // No usable version asked for: fall back to the table's own (default) version of that group.
  if (!hadVersion && candidates.length === 0 && table.group === groupKind.group) candidates.push(table.version);
  if (candidates.length === 0) return [];

  const mappings: RestMapping[] = [];
  for (const version of candidates) {
    const entry = table.kinds.get(groupKind.kind);
    if (entry === undefined) continue;
    mappings.push({
      resource: { group: table.group, version, resource: entry.resource },
      groupVersionKind: { group: table.group, version, kind: groupKind.kind },
      scope: entry.scope,
    });
  }
  return mappings;
}

/** apimachinery's UnsafeGuessKindToResource (plural only). */
export function guessPluralResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === '') return '';
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}
