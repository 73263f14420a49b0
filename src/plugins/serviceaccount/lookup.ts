// Finding the pod's service account: the informer cache first, then live GETs. A brand-new
// namespace's `default` account may not exist yet (a controller creates it), so for that name
// upstream tries 10 times, pausing one random 100–199 ms interval between tries; any other name
// gets exactly one live GET. A live error other than NotFound ends the search at once.
import { goQuote } from '../../api/go-format.ts';
import { isForbidden } from '../../api/status-error.ts';
import type { Clock, Random } from '../../ports/clock.ts';
import type { Lookups, ServiceAccount } from '../../ports/lookups.ts';
import { defaultServiceAccountAttempts, defaultServiceAccountName, otherServiceAccountAttempts } from './constants.ts';

/** Why the lookup failed, as Go's error value would print and unwrap. */
export class ServiceAccountLookupError extends Error {
  /** errors.As(err, Forbidden) would see through a %w wrap of this error. */
  readonly forbidden: boolean;
  /** The account does not exist (after every attempt): the one failure creating it fixes. */
  readonly notFound: boolean;

  constructor(message: string, options: { forbidden: boolean; notFound?: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'ServiceAccountLookupError';
    this.forbidden = options.forbidden;
    this.notFound = options.notFound ?? false;
  }
}

export interface ServiceAccountSource {
  lookups: Pick<Lookups, 'serviceAccounts'>;
  clock: Clock;
  random: Random;
}

/**
 * The service account, or a ServiceAccountLookupError: NotFound after the last attempt reads
 * `serviceaccount "<name>" not found` (upstream builds it with resource "serviceaccount").
 * An aborted request (deadline) is rethrown as-is: it is not a lookup answer.
 */
export async function getServiceAccount(
  source: ServiceAccountSource,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<ServiceAccount> {
  const cached = source.lookups.serviceAccounts.cached(namespace, name);
  if (cached !== undefined) return cached;

  const attempts = name === defaultServiceAccountName ? defaultServiceAccountAttempts : otherServiceAccountAttempts;
  // One interval per lookup, drawn before the first attempt even when there is only one.
  const retryIntervalMs = 100 + source.random.intBelow(100);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt !== 0) await source.clock.sleep(retryIntervalMs, signal);
    let found: ServiceAccount | undefined;
    try {
      found = await source.lookups.serviceAccounts.live(namespace, name, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ServiceAccountLookupError(errorText(error), { forbidden: isForbidden(error), cause: error });
    }
    if (found !== undefined) return found;
  }
  throw new ServiceAccountLookupError(`serviceaccount ${goQuote(name)} not found`, { forbidden: false, notFound: true });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
