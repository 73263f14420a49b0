// Turns parsed JSON/YAML into a SubjectAccessReview, refusing what kube-apiserver's decoder would
// refuse (wrong apiVersion/kind, wrong field types) with a one-line message naming the field.
// The wording is ours: Go's decoder errors name Go types, which mean nothing to our users.

import { type SubjectAccessReview, subjectAccessReviewApiVersion, subjectAccessReviewKind } from './subject-access-review.ts';

export class SubjectAccessReviewDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubjectAccessReviewDecodeError';
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const fail = (path: string, expected: string, value: unknown): never => {
  throw new SubjectAccessReviewDecodeError(`${path}: expected ${expected}, got ${describe(value)}`);
};

function optionalString(object: Json, key: string, path: string): void {
  const value = object[key];
  if (value !== undefined && value !== null && typeof value !== 'string') fail(`${path}.${key}`, 'a string', value);
}

function optionalStringArray(value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) fail(path, 'an array of strings', value);
  (value as unknown[]).forEach((item, i) => {
    if (typeof item !== 'string') fail(`${path}[${i}]`, 'a string', item);
  });
}

function optionalObject(object: Json, key: string, path: string): Json | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  return isObject(value) ? value : fail(`${path}.${key}`, 'an object', value);
}

function checkSelector(selector: Json | undefined, path: string): void {
  if (!selector) return;
  optionalString(selector, 'rawSelector', path);
  const requirements = selector.requirements;
  if (requirements === undefined || requirements === null) return;
  if (!Array.isArray(requirements)) fail(`${path}.requirements`, 'an array', requirements);
  (requirements as unknown[]).forEach((requirement, i) => {
    const at = `${path}.requirements[${i}]`;
    if (!isObject(requirement)) {
      fail(at, 'an object', requirement);
      return;
    }
    optionalString(requirement, 'key', at);
    optionalString(requirement, 'operator', at);
    optionalStringArray(requirement.values, `${at}.values`);
  });
}

/** Checks apiVersion, kind and field types; the object is returned as the typed review. */
export function decodeSubjectAccessReview(value: unknown): SubjectAccessReview {
  if (!isObject(value)) return fail('SubjectAccessReview', 'an object', value);
  if (value.apiVersion !== subjectAccessReviewApiVersion || value.kind !== subjectAccessReviewKind) {
    throw new SubjectAccessReviewDecodeError(
      `expected apiVersion ${subjectAccessReviewApiVersion} and kind ${subjectAccessReviewKind}, got ${JSON.stringify(value.apiVersion ?? '')} and ${JSON.stringify(value.kind ?? '')}`,
    );
  }
  const metadata = optionalObject(value, 'metadata', '');
  const spec = optionalObject(value, 'spec', '') ?? {};
  for (const key of ['user', 'uid']) optionalString(spec, key, 'spec');
  optionalStringArray(spec.groups, 'spec.groups');
  const extra = optionalObject(spec, 'extra', 'spec');
  for (const [key, values] of Object.entries(extra ?? {})) optionalStringArray(values, `spec.extra[${JSON.stringify(key)}]`);
  const resource = optionalObject(spec, 'resourceAttributes', 'spec');
  if (resource) {
    for (const key of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'])
      optionalString(resource, key, 'spec.resourceAttributes');
    checkSelector(optionalObject(resource, 'fieldSelector', 'spec.resourceAttributes'), 'spec.resourceAttributes.fieldSelector');
    checkSelector(optionalObject(resource, 'labelSelector', 'spec.resourceAttributes'), 'spec.resourceAttributes.labelSelector');
  }
  const nonResource = optionalObject(spec, 'nonResourceAttributes', 'spec');
  if (nonResource) for (const key of ['path', 'verb']) optionalString(nonResource, key, 'spec.nonResourceAttributes');
  const status = optionalObject(value, 'status', '');
  if (status) {
    for (const key of ['allowed', 'denied']) {
      if (status[key] !== undefined && status[key] !== null && typeof status[key] !== 'boolean')
        fail(`status.${key}`, 'a boolean', status[key]);
    }
  }
  const review: SubjectAccessReview = { ...(value as object), spec } as SubjectAccessReview;
  if (metadata !== undefined) review.metadata = metadata;
  return review;
}
