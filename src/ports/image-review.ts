// How ImagePolicyWebhook reaches its ImageReview backend: one client per kubeconfig file, made at
// start-up (a kubeconfig that cannot be used stops the webhook before it serves), and one POST per
// attempt. The plugin decides what a response means (upstream's REST client rules); the client only
// carries bytes, under the signal it is given.

/** What came back from one POST, before anyone reads it as an ImageReview. */
export interface ImageReviewResponse {
  readonly statusCode: number;
  /** The Content-Type header, undefined when the backend sent none. */
  readonly contentType: string | undefined;
  /** The Retry-After header, undefined when absent. */
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/** Why a POST got no response at all (refused, reset, TLS, timed out, aborted). */
export class ImageReviewTransportError extends Error {
  /** The connection was reset or lost mid-request: upstream retries those. */
  readonly connectionReset: boolean;

  constructor(message: string, connectionReset: boolean, cause?: unknown) {
    super(message, { cause });
    this.name = 'ImageReviewTransportError';
    this.connectionReset = connectionReset;
  }
}

export interface ImageReviewClient {
  /** The backend's URL (the kubeconfig's current cluster's server), as errors name it. */
  readonly url: string;
  /** POSTs a JSON body; rejects with an ImageReviewTransportError when no response came. */
  post(body: string, signal: AbortSignal): Promise<ImageReviewResponse>;
}

export interface ImageReviewClients {
  /** A client for the backend the kubeconfig file describes; throws a clear Error when it cannot. */
  fromKubeConfigFile(file: string): ImageReviewClient;
}
