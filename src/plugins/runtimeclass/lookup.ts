// Finding the pod's RuntimeClass: the informer cache first; only when it has no such class, one
// live read, because a class created a moment ago may not have reached the cache yet.

import type { Attributes } from '../../admission/attributes.ts';
import { forbidden } from '../../admission/errors.ts';
import type { Pod } from '../../api/core.ts';
import { goQuote } from '../../api/go-format.ts';
import { isStatusError, StatusError } from '../../api/status-error.ts';
import type { ResourceLookup, RuntimeClass } from '../../ports/lookups.ts';

export async function runtimeClassFor(
  attributes: Attributes,
  pod: Pod,
  runtimeClasses: ResourceLookup<RuntimeClass>,
  signal: AbortSignal,
): Promise<RuntimeClass | undefined> {
  const name = pod.spec?.runtimeClassName;
  if (name === undefined || name === null) return undefined;

  const cached = runtimeClasses.cached('', name);
  if (cached !== undefined) return cached;

  // client-go refuses a GET without a name before sending anything.
  if (name === '') throw unconvertedError('resource name may not be empty');
  let live: RuntimeClass | undefined;
  try {
    live = await runtimeClasses.live('', name, signal);
  } catch (error) {
    if (isStatusError(error)) throw error;
    throw unconvertedError(error instanceof Error ? error.message : String(error));
  }
  if (live === undefined) throw forbidden(attributes, `pod rejected: RuntimeClass ${goQuote(name)} not found`);
  return live;
}

/**
 * What kube-apiserver answers for an admission error that is not an API status
 * (responsewriters.ErrorToAPIStatus): 500 with no reason and the error's text.
 */
function unconvertedError(message: string): StatusError {
  return new StatusError({ status: 'Failure', code: 500, message });
}
