// One call to kube-apiserver through client-node with a deadline of its own (and the caller's
// signal), the abandoned request aborted on the wire; failures become errors that read like
// client-go's, with the HTTP code kept for callers that branch on it (404, 409).
import { ApiException, type ConfigurationOptions, type ObservableMiddleware } from '@kubernetes/client-node';
import { withTimeout } from '../../../util/signals.ts';
import { describeKubeError, type KubeRequests, raceWithSignal } from './kube.ts';

export class KubeCallError extends Error {
  /** The HTTP status the API server answered, or undefined when none came (network, timeout). */
  readonly code: number | undefined;
  constructor(message: string, code: number | undefined, cause: unknown) {
    super(message, { cause });
    this.name = 'KubeCallError';
    this.code = code;
  }
}

export interface BoundedCall {
  requests: KubeRequests;
  timeoutMs: number;
}

export async function boundedCall<T>(
  context: BoundedCall,
  describe: { method: string; url: string },
  call: (options: ConfigurationOptions<ObservableMiddleware>) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await withTimeout(signal, context.timeoutMs, (bounded) => raceWithSignal(call(context.requests.options(bounded)), bounded));
  } catch (error) {
    const code = error instanceof ApiException ? error.code : undefined;
    throw new KubeCallError(describeKubeError(error, describe.method, describe.url), code, error);
  }
}
