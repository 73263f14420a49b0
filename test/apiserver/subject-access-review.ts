// POST /apis/authorization.k8s.io/v1/subjectaccessreviews, as kube-apiserver's REST storage answers
// it: validate the spec, ask the configured authorizer, echo the review back with its status (201).
import type { AuthorizationAttributes, Authorizer, ResourceAttributes } from '../../src/ports/authorizer.ts';
import type { Route } from './routes.ts';
import { badRequest, invalid } from './status.ts';

export const subjectAccessReviewRouteName = 'create subjectaccessreviews';

interface ReviewSpec {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: { path?: string; verb?: string };
}

interface Review {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  spec?: ReviewSpec;
}

/** Upstream ValidateSubjectAccessReviewSpec's field errors (the ones a client can trip). */
function validate(spec: ReviewSpec): Array<{ field: string; message: string }> {
  const errors: Array<{ field: string; message: string }> = [];
  if (spec.resourceAttributes !== undefined && spec.nonResourceAttributes !== undefined) {
    errors.push({
      field: 'spec.nonResourceAttributes',
      message: 'Invalid value: "null": cannot be specified in combination with resourceAttributes',
    });
  } else if (spec.resourceAttributes === undefined && spec.nonResourceAttributes === undefined) {
    errors.push({
      field: 'spec.resourceAttributes',
      message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
  if (!spec.user && (spec.groups ?? []).length === 0) {
    errors.push({ field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' });
  }
  return errors;
}

function attributesFrom(spec: ReviewSpec): AuthorizationAttributes {
  const attributes: AuthorizationAttributes = {
    user: { username: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [], extra: spec.extra ?? {} },
  };
  if (spec.resourceAttributes !== undefined) attributes.resourceAttributes = spec.resourceAttributes;
  if (spec.nonResourceAttributes !== undefined) {
    attributes.nonResourceAttributes = { path: spec.nonResourceAttributes.path ?? '', verb: spec.nonResourceAttributes.verb ?? '' };
  }
  return attributes;
}

export function subjectAccessReviewRoute(authorizer: Authorizer): Route {
  return {
    name: subjectAccessReviewRouteName,
    method: 'POST',
    pattern: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    async handle(request, respond) {
      const review = request.body as Review | undefined;
      if (review === undefined || typeof review !== 'object' || review === null) {
        respond.status(
          badRequest(
            'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
          ),
        );
        return;
      }
      const spec = review.spec ?? {};
      const errors = validate(spec);
      if (errors.length > 0) {
        respond.status(invalid('authorization.k8s.io', 'SubjectAccessReview', '', errors));
        return;
      }
      const result = await authorizer.authorize(attributesFrom(spec), request.signal);
      const status: Record<string, unknown> = { allowed: result.decision === 'allow' };
      if (result.decision === 'deny') status.denied = true;
      if (result.reason !== '') status.reason = result.reason;
      if (result.error !== undefined) status.evaluationError = result.error;
      respond.json(201, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: { creationTimestamp: null, ...review.metadata },
        spec,
        status,
      });
    },
  };
}
