// apimachinery's RESTMapper "no match" errors (pkg/api/meta/errors.go), worded exactly, so a denial
// that quotes them reads like kube-apiserver's.

/** Go's GroupVersion.String(): "v1" for the core group, "apps/v1" otherwise. */
function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Go's %q of a string. */
function quote(value: string): string {
  return JSON.stringify(value);
}

export class NoKindMatchError extends Error {
  readonly group: string;
  readonly kind: string;
  readonly searchedVersions: readonly string[];

  constructor(groupKind: { group: string; kind: string }, searchedVersions: readonly string[]) {
    super(noKindMatchMessage(groupKind, searchedVersions));
    this.name = 'NoKindMatchError';
    this.group = groupKind.group;
    this.kind = groupKind.kind;
    this.searchedVersions = searchedVersions;
  }
}

function noKindMatchMessage({ group, kind }: { group: string; kind: string }, versions: readonly string[]): string {
  // A sorted set, as sets.String.List() gives.
  const searched = [...new Set(versions.map((v) => groupVersionString(group, v)))].sort();
  if (searched.length === 0) return `no matches for kind ${quote(kind)} in group ${quote(group)}`;
  if (searched.length === 1) return `no matches for kind ${quote(kind)} in version ${quote(searched[0]!)}`;
  return `no matches for kind ${quote(kind)} in versions [${searched.map(quote).join(' ')}]`;
}

export class NoResourceMatchError extends Error {
  constructor(partial: { group: string; version: string; resource: string }) {
    // %v of a GroupVersionResource uses its String(): "group/version, Resource=resource".
    super(`no matches for ${partial.group}/${partial.version}, Resource=${partial.resource}`);
    this.name = 'NoResourceMatchError';
  }
}

export function isNoMatchError(error: unknown): boolean {
  return error instanceof NoKindMatchError || error instanceof NoResourceMatchError;
}
