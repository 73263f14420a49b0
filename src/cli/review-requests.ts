// The requests a review runs: an AdmissionReview document as it is, or a manifest turned into the
// request `kubectl apply` would send for it (the resource from discovery, the namespace, the user).
import { randomUUID } from 'node:crypto';
import { isOperation, type Operation } from '../admission/operation.ts';
import { type AdmissionApiVersion, type AdmissionRequest, BadReviewError, decodeReview } from '../admission/review.ts';
import { type KubeObject, parseGroupVersion, type UserInfo } from '../api/types.ts';
import type { RestMapper } from '../ports/rest-mapper.ts';
import { isPlainObject } from '../util/plain-object.ts';
import { CliError } from './io.ts';

export interface ReviewRequest {
  apiVersion: AdmissionApiVersion;
  request: AdmissionRequest;
  /** Built from a manifest (so its workload is expanded), not read as an AdmissionReview. */
  fromManifest: boolean;
}

export interface ManifestContext {
  restMapper: RestMapper | undefined;
  signal: AbortSignal;
  /** Where the manifest has no namespace of its own. */
  namespace: string;
  userInfo: UserInfo;
  operation?: string;
  subresource?: string;
}

/** A document's request; throws an Error whose message is the document's problem. */
export async function requestFor(value: unknown, context: ManifestContext, oldObject?: KubeObject): Promise<ReviewRequest> {
  if (isPlainObject(value) && value.kind === 'AdmissionReview') {
    try {
      const decoded = decodeReview(value);
      return { apiVersion: decoded.apiVersion, request: decoded.request, fromManifest: false };
    } catch (error) {
      if (error instanceof BadReviewError) throw new Error(`invalid AdmissionReview: ${error.message}`);
      throw error;
    }
  }
  const object = asKubeObject(value);
  const operation = context.operation ?? (oldObject ? 'UPDATE' : 'CREATE');
  if (!isOperation(operation))
    throw new CliError(`--operation ${JSON.stringify(operation)}: expected CREATE, UPDATE, DELETE or CONNECT`, 2);
  const request = await manifestRequest(object, operation, context, oldObject);
  return { apiVersion: 'admission.k8s.io/v1', request, fromManifest: true };
}

export function asKubeObject(value: unknown): KubeObject {
  if (!isPlainObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
    throw new Error('expected a Kubernetes object with apiVersion and kind');
  }
  return value as KubeObject;
}

/** The request that writes the object: its kind resolved to a resource, namespaced where that resource is. */
export async function manifestRequest(
  object: KubeObject,
  operation: Operation,
  context: ManifestContext,
  oldObject?: KubeObject,
): Promise<AdmissionRequest> {
  const { restMapper } = context;
  if (!restMapper) throw new CliError('this backend has no REST mapper to resolve the manifest kind');
  const { group, version } = parseGroupVersion(object.apiVersion!);
  let mappings: Awaited<ReturnType<typeof restMapper.mappingsFor>>;
  try {
    mappings = await restMapper.mappingsFor({ group, kind: object.kind! }, [version], context.signal);
  } catch (error) {
    throw new Error(`cannot resolve ${object.apiVersion} ${object.kind}: ${(error as Error).message}`);
  }
  const mapping = mappings[0]!;
  const request: AdmissionRequest = {
    uid: randomUUID(),
    kind: { group, version, kind: object.kind! },
    resource: mapping.resource,
    requestKind: { group, version, kind: object.kind! },
    requestResource: mapping.resource,
    name: object.metadata?.name ?? '',
    operation,
    userInfo: context.userInfo,
    object,
    oldObject: oldObject ?? null,
    dryRun: true,
  };
  if (mapping.scope === 'namespace') request.namespace = object.metadata?.namespace ?? context.namespace;
  if (context.subresource) request.subResource = context.subresource;
  return request;
}
