// ImagePolicyWebhook (upstream plugin/pkg/admission/imagepolicy): a cluster that must run only
// approved images (signed, scanned, from its own registries) asks an external ImageReview backend
// about every pod's images before the pod is stored. Answers are cached (allowed image sets for
// the allow TTL, denied ones for the deny TTL); a backend that cannot be reached denies the pod,
// unless defaultAllow, which admits it with the failed-open audit annotation.
//
// Upstream decides in Validate, and a validating webhook is where ours decides too. Upstream also
// writes alpha.image-policy.k8s.io/failed-open onto the pod there, but kube-apiserver hands
// validation a deep copy of the object (k8s.io/apiserver registry/generic/registry/store.go), so
// that mark never reaches the stored pod: ours makes none either, and the audit annotation is what
// records a pod admitted failed-open, on a real cluster as here.
import type { Attributes, RequestContext } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import { Operation } from '../../admission/operation.ts';
import type { AdmissionPlugin, PluginDefinition } from '../../admission/plugin.ts';
import { isQualifiedName } from '../../api/label-validation.ts';
import { isForbidden, StatusError } from '../../api/status-error.ts';
import type { Clock, Random } from '../../ports/clock.ts';
import type { ImageReviewClient } from '../../ports/image-review.ts';
import { type Logger, silentLogger } from '../../ports/logger.ts';
import { PluginConfigurationError } from '../../ports/plugin-configuration.ts';
import type { ImagePolicyWebhookRecorder } from '../../ports/recorders.ts';
import { askBackend, type BackendError } from './backend-call.ts';
import { type ImagePolicyConfiguration, parseConfiguration, toMilliseconds } from './configuration.ts';
import { encodeReview, encodeSpec, type ImageReviewStatus, isReviewed, podOf, reviewSpec } from './image-review.ts';
import { ResponseCache } from './response-cache.ts';

export const pluginName = 'ImagePolicyWebhook';

/**
 * The pod annotation upstream writes on a pod admitted because the backend failed
 * (api.ImagePolicyFailedOpenKey), onto the copy kube-apiserver discards: a stored pod never has it.
 */
export const failedOpenPodAnnotation = 'alpha.image-policy.k8s.io/failed-open';
/** Upstream's audit keys are this prefix and a suffix; kube-apiserver files ours under the webhook's name. */
export const upstreamAuditKeyPrefix = 'imagepolicywebhook.image-policy.k8s.io/';
/** The audit annotation (suffix) of a request admitted in spite of a backend failure. */
export const failedOpenAuditKey = 'failed-open';

export const definition: PluginDefinition<'imageReview'> = {
  name: pluginName,
  needs: ['imageReview'],
  create: (ports) => {
    const section = ports.configuration?.for(pluginName);
    const configuration = parseConfiguration(section, pluginName);
    let client: ImageReviewClient;
    try {
      client = ports.imageReview.fromKubeConfigFile(configuration.kubeConfigFile);
    } catch (error) {
      // parseConfiguration has refused a missing section already.
      throw new PluginConfigurationError(section!, pluginName, 'imagePolicy.kubeConfigFile', (error as Error).message);
    }
    const recorder = ports.recorders?.imagePolicyWebhook;
    return imagePolicyWebhook({
      configuration,
      client,
      clock: ports.clock,
      random: ports.random,
      logger: ports.logger,
      ...(recorder === undefined ? {} : { recorder }),
    });
  },
};

export interface ImagePolicyWebhookOptions {
  readonly configuration: ImagePolicyConfiguration;
  readonly client: ImageReviewClient;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger?: Logger;
  readonly recorder?: ImagePolicyWebhookRecorder;
}

type Outcome = { readonly status: ImageReviewStatus } | { readonly error: BackendError };

export function imagePolicyWebhook(options: ImagePolicyWebhookOptions): AdmissionPlugin & { readonly cache: ResponseCache } {
  const { configuration, client, clock, random } = options;
  const logger = options.logger ?? silentLogger;
  const cache = new ResponseCache(clock);
  const { recorder } = options;
  const call = { client, clock, random, recorder, retryBackoffMs: toMilliseconds(configuration.retryBackoff) };

  /** admitPod's question: the cache, else the backend (an answer is cached for its TTL). */
  const ask = async (attributes: Attributes, context: RequestContext): Promise<Outcome> => {
    const spec = reviewSpec(attributes, podOf(attributes));
    const key = encodeSpec(spec);
    const cached = cache.get(key);
    if (cached !== undefined) {
      recorder?.reviewed({ source: 'cache', outcome: cached.allowed ? 'allowed' : 'denied' });
      return { status: cached };
    }
    const answer = await askBackend(call, encodeReview(key), context.deadline.signal);
    if ('status' in answer) {
      const ttl = answer.status.allowed ? configuration.allowTTL : configuration.denyTTL;
      cache.add(key, answer.status, toMilliseconds(ttl));
    }
    recorder?.reviewed({ source: 'backend', outcome: 'error' in answer ? 'error' : answer.status.allowed ? 'allowed' : 'denied' });
    return answer;
  };

  return {
    name: pluginName,
    cache,
    handles: (operation) => operation === Operation.Create || operation === Operation.Update,

    async validate(attributes, context) {
      if (!isReviewed(attributes)) return;
      const outcome = await ask(attributes, context);
      if ('error' in outcome) {
        logger.debug({ error: outcome.error.message }, 'error contacting the image policy webhook backend');
        if (configuration.defaultAllow) {
          context.annotate(failedOpenAuditKey, 'true');
          return;
        }
        throw forbiddenBy(attributes, outcome.error);
      }
      const { status } = outcome;
      for (const [key, value] of Object.entries(status.auditAnnotations)) {
        // Upstream's AddAnnotation refuses a key that does not make a qualified name with its prefix.
        if (isQualifiedName(upstreamAuditKeyPrefix + key).length > 0) {
          logger.warn({ key: upstreamAuditKeyPrefix + key }, 'image policy backend returned an invalid audit annotation key: ignored');
          continue;
        }
        context.annotate(key, value);
      }
      if (status.allowed) return;
      throw forbidden(
        attributes,
        status.reason === ''
          ? 'one or more images rejected by webhook backend'
          : `image policy webhook backend denied one or more images: ${status.reason}`,
      );
    },
  };
}

/**
 * admission.NewForbidden over the backend's error: an error client-go already typed as Forbidden
 * (the backend answered 403) is returned as it is, anything else becomes the pod's Forbidden.
 */
function forbiddenBy(attributes: Attributes, error: BackendError): StatusError {
  const asStatus =
    error.code === undefined
      ? undefined
      : new StatusError({
          status: 'Failure',
          code: error.code,
          ...(error.reason === undefined ? {} : { reason: error.reason }),
          message: error.message,
          details: { group: '', kind: '', ...(error.retryAfterSeconds ? { retryAfterSeconds: error.retryAfterSeconds } : {}) },
        });
  if (asStatus !== undefined && isForbidden(asStatus)) return asStatus;
  return forbidden(attributes, error.message);
}
