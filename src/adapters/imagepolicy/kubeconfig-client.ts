// ImagePolicyWebhook's backend client: the kubeconfig file upstream's plugin is configured with,
// read by @kubernetes/client-node (its current context's cluster and user: server, CA, client
// certificate, token), and one HTTPS POST per attempt. What is wrong with the file is found here, at
// start-up, as upstream's plugin finds it when it is built; certificate files are read then too.
import { readFileSync } from 'node:fs';
import { Agent, type RequestOptions, request } from 'node:https';
import { resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import {
  type ImageReviewClient,
  type ImageReviewClients,
  type ImageReviewResponse,
  ImageReviewTransportError,
} from '../../ports/image-review.ts';

/** The most of a response body read: a backend's ImageReview is small; kube-apiserver's own request limit. */
export const maxResponseBytes = 3 * 1024 * 1024;

export const kubeConfigImageReviewClients: ImageReviewClients = {
  fromKubeConfigFile: (file) => kubeConfigClient(file),
};

/** A client for the kubeconfig file; `now` is the clock its credentials are read again by. */
export function kubeConfigClient(file: string, now: () => number = Date.now): ImageReviewClient {
  const path = resolve(file);
  const fail = (detail: string) => new Error(`image policy backend kubeconfig ${file}: ${detail}`);
  const config = new KubeConfig();
  try {
    // Relative paths inside the file are resolved against its folder, as clientcmd resolves them.
    config.loadFromFile(path);
  } catch (error) {
    throw fail((error as Error).message.split('\n')[0] ?? 'unreadable');
  }
  const context = config.getContextObject(config.getCurrentContext());
  if (context === null) throw fail('no current-context names a context in the file');
  const cluster = config.getCurrentCluster();
  if (cluster === null) throw fail(`context ${JSON.stringify(context.name)} names no cluster in the file`);
  // client-node applies the cluster's CA only when the context has a user (an empty one will do).
  if (config.getCurrentUser() === null) throw fail(`context ${JSON.stringify(context.name)} names no user in the file`);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw fail(`cluster ${JSON.stringify(cluster.name)} has no valid server URL`);
  }
  if (url.protocol !== 'https:') throw fail(`cluster ${JSON.stringify(cluster.name)}: the server must be an https URL`);
  const user = config.getCurrentUser();
  for (const [what, name] of [
    ['certificate-authority', cluster.caFile],
    ['client-certificate', user?.certFile],
    ['client-key', user?.keyFile],
  ] as const) {
    if (name === undefined || name === null || name === '') continue;
    try {
      readFileSync(name);
    } catch (error) {
      throw fail(`unable to read ${what} ${name}: ${(error as Error).message}`);
    }
  }
  // Certificates and tokens are read again now and then, so rotated files and exec credentials
  // are picked up as client-go picks them up; a failed read is retried on the next request.
  let options: Promise<RequestOptions> | undefined;
  let appliedAt = 0;
  const currentOptions = () => {
    if (options === undefined || now() - appliedAt > reapplyAfterMs) {
      appliedAt = now();
      const applying = (async () => {
        const applied: RequestOptions = {};
        await config.applyToHTTPSOptions(applied);
        // client-node keeps one agent per cluster, whose TLS options win over the request's: a fresh
        // agent carries what was just read (through a proxy, client-node's agent is kept).
        if (!cluster.proxyUrl) applied.agent = new Agent({ keepAlive: true, timeout: reapplyAfterMs });
        return applied;
      })();
      options = applying;
      applying.catch(() => {
        if (options === applying) options = undefined;
      });
    }
    return options;
  };
  return {
    url: cluster.server,
    post: async (body, signal) => {
      let base: RequestOptions;
      try {
        base = await currentOptions();
      } catch (error) {
        throw new ImageReviewTransportError(`Post ${JSON.stringify(cluster.server)}: ${(error as Error).message}`, false, error);
      }
      return post(url, cluster.server, base, body, signal);
    },
  };
}

/** How long the kubeconfig's credentials are used before they are read again. */
export const reapplyAfterMs = 60_000;

function post(url: URL, server: string, base: RequestOptions, body: string, signal: AbortSignal): Promise<ImageReviewResponse> {
  const failed = (detail: string, reset: boolean, cause?: unknown) =>
    new ImageReviewTransportError(`Post ${JSON.stringify(server)}: ${detail}`, reset, cause);
  return new Promise((resolvePost, reject) => {
    if (signal.aborted) return reject(failed(abortDetail(signal.reason), false, signal.reason));
    const req = request(url, {
      ...base,
      method: 'POST',
      signal,
      headers: {
        ...base.headers,
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'Content-Length': Buffer.byteLength(body),
      },
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) return reject(failed(abortDetail(signal.reason), false, error));
      reject(failed(error.message, error.code === 'ECONNRESET', error));
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxResponseBytes) {
          response.destroy();
          reject(failed(`response body exceeds ${maxResponseBytes} bytes`, false));
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error: NodeJS.ErrnoException) => {
        if (signal.aborted) return reject(failed(abortDetail(signal.reason), false, error));
        reject(failed(`unexpected error when reading response body: ${error.message}`, error.code === 'ECONNRESET', error));
      });
      response.on('end', () => {
        const header = (name: string) => {
          const value = response.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        resolvePost({
          statusCode: response.statusCode ?? 0,
          contentType: header('content-type'),
          retryAfter: header('retry-after'),
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.end(body);
  });
}

/** Go's context errors: a deadline that passed, or a caller that went away. */
function abortDetail(reason: unknown): string {
  return reason instanceof Error && reason.name === 'TimeoutError' ? 'context deadline exceeded' : 'context canceled';
}
