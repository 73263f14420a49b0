// OwnerReferencesPermissionEnforcement (upstream plugin/pkg/admission/gc): an ownerReference lets
// the garbage collector delete the dependent, and blockOwnerDeletion lets the dependent hold up the
// owner's deletion. So setting an ownerRef needs delete on the dependent, and newly blocking an
// owner needs update on that owner's finalizers. Cheap exits come first, and one wildcard probe
// spares privileged users the per-owner discovery and authorization work.
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import { type AuthorizationFact, FactType } from '../../admission/explanation.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { goErrorString } from '../../api/go-format.ts';
import { parseGroupVersion } from '../../api/types.ts';
import { type AuthorizationAttributes, type AuthorizationResult, type Authorizer, Decision } from '../../ports/authorizer.ts';
import type { RestMapper, RestMapping } from '../../ports/rest-mapper.ts';
import { deleteDependentRecord, finalizeAnythingRecord, ownerFinalizersRecord } from './authorization-records.ts';
import { Denials } from './denials.ts';
import {
  isChangingOwnerReferences,
  type NormalisedOwnerReference,
  newlyBlockingReferences,
  type ReferencePair,
  readReferences,
} from './owner-references.ts';

export const pluginName = 'OwnerReferencesPermissionEnforcement';

/** Which exit a request took; recorded as the `path` audit annotation. */
export const DecisionPath = {
  Whitelisted: 'whitelisted',
  Unchanged: 'unchanged',
  NoNewBlockingRefs: 'no-new-blocking-refs',
  WildcardProbe: 'wildcard-probe',
  PerReference: 'per-reference',
} as const;
export type DecisionPath = (typeof DecisionPath)[keyof typeof DecisionPath];

/**
 * Requests ignored outright. pods/status is here because old kubelets corrupt ownerReferences on
 * status updates, and the pod status strategy already stops status updates from changing them.
 */
const whitelist: ReadonlyArray<{ group: string; resource: string; subresource: string }> = [
  { group: '', resource: 'pods', subresource: 'status' },
];

/** A validating plugin only. */
export type ValidatingPlugin = AdmissionPlugin & Required<Pick<AdmissionPlugin, 'validate'>>;

export function ownerReferencesPermissionEnforcement(authorizer: Authorizer, restMapper: RestMapper): ValidatingPlugin {
  return new OwnerReferencesPermissionEnforcement(authorizer, restMapper);
}

class OwnerReferencesPermissionEnforcement implements AdmissionPlugin {
  readonly name = pluginName;
  readonly #authorizer: Authorizer;
  readonly #restMapper: RestMapper;

  constructor(authorizer: Authorizer, restMapper: RestMapper) {
    this.#authorizer = authorizer;
    this.#restMapper = restMapper;
  }

  handles(operation: Operation): boolean {
    return operation === Operation.Create || operation === Operation.Update;
  }

  /** The cheap exits (most requests) ask nothing; the rest ask the authorizer, and the REST mapper for owners. */
  async validate(attributes: Attributes, context: RequestContext): Promise<void> {
    // The path is recorded as soon as it is known, so a rejection on it is recorded too.
    const took = (path: DecisionPath) => context.annotate('path', path);

    if (isWhitelisted(attributes)) return took(DecisionPath.Whitelisted);
    const refs = readReferences(attributes.object, attributes.oldObject);
    if (!isChangingOwnerReferences(refs)) return took(DecisionPath.Unchanged);
    return this.#checkPermissions(attributes, refs, took, context, answeredByAnnotation(context));
  }

  // The first "no" decides; the questions after it only gather the explanation (denials.ts), and
  // the path recorded is the one taken before it.
  async #checkPermissions(
    attributes: Attributes,
    refs: ReferencePair,
    took: (path: DecisionPath) => void,
    context: RequestContext,
    noted: (result: AuthorizationResult) => AuthorizationResult,
  ): Promise<void> {
    const { signal, expiresAt } = context.deadline;
    const denials = new Denials(expiresAt);
    const tookUnlessDenied = (path: DecisionPath) => {
      if (!denials.denied) took(path);
    };

    // A creator could simply not have created the object, so only non-create requests need
    // delete permission on it. The owner check below still applies to creates.
    if (attributes.operation !== Operation.Create) {
      const record = deleteDependentRecord(attributes);
      const result = noted(await this.#authorize(record, signal));
      if (result.decision !== Decision.Allow) {
        denials.record(
          forbidden(attributes, `cannot set an ownerRef on a resource you can't delete: ${result.reason}, ${goErrorString(result.error)}`),
          authorizationFact(record, result),
        );
      }
    }

    const blockingRefs = newlyBlockingReferences(refs);
    if (blockingRefs.length === 0) {
      tookUnlessDenied(DecisionPath.NoNewBlockingRefs);
      return denials.finish();
    }

    // Discovery can hang when the network is down, and inside admission a hang looks like a dead
    // API server; one question settles every owner for users who may finalize anything.
    if (!denials.mayAsk()) return denials.finish();
    const probe = await denials.inTime(this.#authorize(finalizeAnythingRecord(attributes.userInfo), denials.signal(signal)));
    if (probe !== undefined) noted(probe);
    if (probe?.decision === Decision.Allow) {
      tookUnlessDenied(DecisionPath.WildcardProbe);
      return denials.finish();
    }

    tookUnlessDenied(DecisionPath.PerReference);
    // Owners of one kind (a Deployment's ReplicaSets) share one REST mapping look-up per request,
    // and an owner listed twice is asked about once: the same question has the same answer.
    const kinds = new Map<string, Promise<RestMapping[]>>();
    for (const ref of distinctOwners(blockingRefs)) {
      if (!denials.mayAsk()) return denials.finish();
      const unmapped = (error: unknown) =>
        denials.record(
          forbidden(
            attributes,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: ${errorMessage(error)}`,
          ),
          { type: FactType.UnmappedOwner, apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, error: errorMessage(error) },
        );
      let mappings: RestMapping[] | undefined;
      try {
        mappings = await denials.inTime(this.#mappingsOf(ref, kinds, denials.signal(signal)));
      } catch (error) {
        unmapped(error);
        continue;
      }
      // Out of time while explaining: what was gathered is the explanation.
      if (mappings === undefined) return denials.finish();
      // A kind may map to several resources; the user must be allowed on every one of them.
      for (const mapping of mappings) {
        if (!denials.mayAsk()) return denials.finish();
        const record = ownerFinalizersRecord(attributes, ref, mapping);
        const result = await denials.inTime(this.#authorize(record, denials.signal(signal)));
        if (result === undefined) return denials.finish();
        noted(result);
        if (result.decision !== Decision.Allow) {
          denials.record(
            forbidden(
              attributes,
              `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${result.reason}, ${goErrorString(result.error)}`,
            ),
            authorizationFact(record, result),
          );
        }
      }
    }
    denials.finish();
  }

  /** The owner kind's REST mappings, looked up once per request: its other owners share the look-up. */
  #mappingsOf(ref: NormalisedOwnerReference, kinds: Map<string, Promise<RestMapping[]>>, signal: AbortSignal): Promise<RestMapping[]> {
    const key = `${ref.apiVersion.length}:${ref.apiVersion}${ref.kind}`;
    let mappings = kinds.get(key);
    if (mappings === undefined) {
      const { group, version } = parseGroupVersion(ref.apiVersion);
      mappings = this.#restMapper.mappingsFor({ group, kind: ref.kind }, [version], signal);
      kinds.set(key, mappings);
    }
    return mappings;
  }

  /** An authorizer that fails is an authorizer that did not allow: fail closed, keep the error. */
  async #authorize(record: AuthorizationAttributes, signal: AbortSignal): Promise<AuthorizationResult> {
    try {
      return await this.#authorizer.authorize(record, signal);
    } catch (error) {
      return { decision: Decision.NoOpinion, reason: '', error: errorMessage(error) };
    }
  }
}

/** The references in order with repeats of an owner (same apiVersion, kind and name) left out. */
function distinctOwners(refs: readonly NormalisedOwnerReference[]): readonly NormalisedOwnerReference[] {
  if (refs.length < 2) return refs;
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const key = JSON.stringify([ref.apiVersion, ref.kind, ref.name]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Records, as the `authorized-by` audit annotation, which authorizers answered this request's
 * questions, in the order first seen ("rbac-mirror", "subjectaccessreview,rbac-mirror"), when the
 * backend composes several (--authorizer=rbac-mirror); otherwise answers carry no such mark.
 */
function answeredByAnnotation(context: RequestContext): (result: AuthorizationResult) => AuthorizationResult {
  let seen: string[] | undefined;
  return (result) => {
    const by = result.answeredBy;
    if (by !== undefined && !seen?.includes(by)) {
      (seen ??= []).push(by);
      context.annotate('authorized-by', seen.join(','));
    }
    return result;
  };
}

function isWhitelisted(attributes: Attributes): boolean {
  return whitelist.some(
    (item) =>
      item.group === attributes.resource.group &&
      item.resource === attributes.resource.resource &&
      item.subresource === attributes.subresource,
  );
}

function authorizationFact(attributes: AuthorizationAttributes, answer: AuthorizationResult): AuthorizationFact {
  return { type: FactType.Authorization, attributes, answer };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const definition: PluginDefinition<'authorizer' | 'restMapper'> = {
  name: pluginName,
  needs: ['authorizer', 'restMapper'],
  create: (ports) => ownerReferencesPermissionEnforcement(ports.authorizer, ports.restMapper),
};
