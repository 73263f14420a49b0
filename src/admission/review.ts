// The AdmissionReview codec (admission.k8s.io/v1 and v1beta1): decode and check a request body,
// and build the response review in the same apiVersion. Anything unusable is a BadReviewError,
// which the HTTP layer answers with 400 and the CLI with a message and a non-zero exit.
import type { GroupVersionKind, GroupVersionResource, KubeObject, Status, UserInfo } from '../api/types.ts';
import { isPlainObject } from '../util/plain-object.ts';
import type { Attributes } from './attributes.ts';
import { isOperation } from './operation.ts';

export const admissionApiVersions = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type AdmissionApiVersion = (typeof admissionApiVersions)[number];

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: UserInfo;
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun?: boolean;
  options?: unknown;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Status;
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionReview {
  apiVersion: AdmissionApiVersion;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

export class BadReviewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadReviewError';
  }
}

export interface DecodedReview {
  apiVersion: AdmissionApiVersion;
  request: AdmissionRequest;
}

/** Checks a parsed body is an AdmissionReview request we can act on. */
export function decodeReview(body: unknown): DecodedReview {
  if (!isPlainObject(body)) throw new BadReviewError('body is not a JSON object');
  const { apiVersion, kind, request } = body;
  if (kind !== 'AdmissionReview') {
    throw new BadReviewError(`expected kind AdmissionReview, got ${describe(kind)}`);
  }
  if (!admissionApiVersions.includes(apiVersion as AdmissionApiVersion)) {
    throw new BadReviewError(`unsupported apiVersion ${describe(apiVersion)}: expected one of ${admissionApiVersions.join(', ')}`);
  }
  if (!isPlainObject(request)) throw new BadReviewError('AdmissionReview has no request');
  if (typeof request.uid !== 'string' || request.uid === '') throw new BadReviewError('request.uid is missing');
  if (!isOperation(request.operation)) {
    throw new BadReviewError(`request.operation ${describe(request.operation)} is not one of CREATE, UPDATE, DELETE, CONNECT`);
  }
  checkGroupVersion(request.kind, 'kind', 'kind');
  checkGroupVersion(request.resource, 'resource', 'resource');
  if (request.requestKind !== undefined && request.requestKind !== null) checkGroupVersion(request.requestKind, 'requestKind', 'kind');
  for (const field of ['subResource', 'name', 'namespace'] as const) {
    if (request[field] !== undefined && typeof request[field] !== 'string') throw new BadReviewError(`request.${field} must be a string`);
  }
  for (const field of ['object', 'oldObject'] as const) {
    const value = request[field];
    if (value !== undefined && value !== null && !isPlainObject(value)) throw new BadReviewError(`request.${field} must be an object`);
  }
  if (request.userInfo !== undefined) freezeUserInfo(checkUserInfo(request.userInfo));
  if (request.dryRun !== undefined && typeof request.dryRun !== 'boolean') throw new BadReviewError('request.dryRun must be a boolean');
  return { apiVersion: apiVersion as AdmissionApiVersion, request: request as unknown as AdmissionRequest };
}

/** The identity feeds authorization questions: its shape is checked, never guessed at. */
function checkUserInfo(value: unknown): UserInfo {
  if (!isPlainObject(value)) throw new BadReviewError('request.userInfo must be an object');
  for (const field of ['username', 'uid'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string')
      throw new BadReviewError(`request.userInfo.${field} must be a string`);
  }
  if (value.groups !== undefined && !isStringArray(value.groups))
    throw new BadReviewError('request.userInfo.groups must be an array of strings');
  if (value.extra !== undefined) {
    if (!isPlainObject(value.extra) || !Object.values(value.extra).every(isStringArray)) {
      throw new BadReviewError('request.userInfo.extra must map keys to arrays of strings');
    }
  }
  return value as UserInfo;
}

/**
 * The requester's identity is fixed for the whole request: frozen, nothing can change it between
 * two authorization questions, and the SubjectAccessReview cache may remember its key by object.
 */
function freezeUserInfo(user: UserInfo): void {
  if (user.groups !== undefined) Object.freeze(user.groups);
  if (user.extra !== undefined) {
    for (const values of Object.values(user.extra)) Object.freeze(values);
    Object.freeze(user.extra);
  }
  Object.freeze(user);
}

/** The identity of a request that carries none (frozen, like every decoded identity). */
const anonymousUserInfo: UserInfo = Object.freeze({});

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function checkGroupVersion(value: unknown, field: string, nameField: 'kind' | 'resource'): void {
  if (!isPlainObject(value)) throw new BadReviewError(`request.${field} is missing`);
  const name = value[nameField];
  if (typeof name !== 'string' || name === '') throw new BadReviewError(`request.${field}.${nameField} is missing`);
  if (typeof value.version !== 'string') throw new BadReviewError(`request.${field}.version is missing`);
  if (value.group !== undefined && typeof value.group !== 'string') throw new BadReviewError(`request.${field}.group must be a string`);
}

/** The attributes plugins see; `object` is the caller's to copy or not. */
export function attributesFrom(request: AdmissionRequest, object: KubeObject | undefined): Attributes {
  const kind = { group: request.kind.group ?? '', version: request.kind.version, kind: request.kind.kind };
  const requestKind = convertedFrom(kind, request.requestKind);
  return {
    uid: request.uid,
    operation: request.operation as Attributes['operation'],
    kind,
    ...(requestKind === undefined ? {} : { requestKind }),
    resource: { group: request.resource.group ?? '', version: request.resource.version, resource: request.resource.resource },
    subresource: request.subResource ?? '',
    namespace: request.namespace ?? '',
    name: request.name ?? '',
    object,
    oldObject: request.oldObject ?? undefined,
    userInfo: request.userInfo ?? anonymousUserInfo,
    dryRun: request.dryRun ?? false,
    options: request.options,
  };
}

/** The request's own kind when it differs from the one the webhook was sent. */
function convertedFrom(kind: GroupVersionKind, requested: GroupVersionKind | null | undefined): GroupVersionKind | undefined {
  if (requested === undefined || requested === null) return undefined;
  const group = requested.group ?? '';
  if (group === kind.group && requested.version === kind.version && requested.kind === kind.kind) return undefined;
  return { group, version: requested.version, kind: requested.kind };
}

export function responseReview(apiVersion: AdmissionApiVersion, response: AdmissionResponse): AdmissionReview {
  return { apiVersion, kind: 'AdmissionReview', response };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  // Only scalars are quoted back: a nested value could be arbitrarily deep (or large).
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
