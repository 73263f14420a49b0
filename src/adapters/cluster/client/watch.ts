// One WATCH request of an informer (informer.ts): the events of one collection from a resourceVersion,
// until the server ends the stream, the connection fails, nothing arrives for timeoutMs, or the
// caller's signal aborts. Sent with undici over the connection pool client-node's public
// applySecurityAuthentication builds for it (the kubeconfig's TLS identity and credentials), and
// that pool is destroyed when the watch ends, however it ends: nothing lingers after a stop, a
// watch that hangs before answering included.
import { STATUS_CODES } from 'node:http';
import { HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { type Dispatcher, request } from 'undici';
import { raceWithSignal } from '../../../util/signals.ts';

/**
 * The longest event a watch may send, in characters: well above what etcd stores for one object
 * (1.5 MiB by default) in JSON, so only a broken stream reaches it, and it cannot grow the heap
 * without a bound.
 */
const maxEventLength = 64 * 1024 * 1024;

/** One watch event as the API server sends it: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
export interface WatchEvent {
  type: string;
  object: unknown;
}

export interface WatchOptions {
  kubeConfig: KubeConfig;
  /** The collection path, across all namespaces: "/api/v1/serviceaccounts". */
  path: string;
  /** Where to resume ("" for now). */
  resourceVersion: string;
  /** Ends the watch; the returned promise then rejects with the signal's reason. */
  signal: AbortSignal;
  /** Gives up (a TimeoutError) when no answer, event or data arrives for this long. */
  timeoutMs: number;
  /** The server answered 200: the watch is open. */
  opened(): void;
  /** Each event as it arrives; returning false ends the watch (the promise resolves). */
  event(event: WatchEvent): boolean;
}

/** A watch the server refused: its HTTP status (410 Gone: the resourceVersion is too old). */
export class WatchStatusError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number) {
    super(STATUS_CODES[statusCode] ?? `status ${statusCode}`);
    this.name = 'WatchStatusError';
    this.statusCode = statusCode;
  }
}

/**
 * Runs one watch. Resolves when the server ends the stream cleanly (or event() returned false);
 * rejects with a WatchStatusError for any answer but 200, a TimeoutError after timeoutMs of
 * silence, the signal's reason once it aborts, or the connection's own error.
 */
export async function watchOnce(options: WatchOptions): Promise<void> {
  const { kubeConfig, signal } = options;
  signal.throwIfAborted();
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('No currently active cluster');
  const url = new URL(cluster.server + options.path);
  url.searchParams.set('watch', 'true');
  url.searchParams.set('allowWatchBookmarks', 'true');
  if (options.resourceVersion !== '') url.searchParams.set('resourceVersion', options.resourceVersion);
  const context = new RequestContext(url.toString(), HttpMethod.GET);
  // Credentials (an exec plugin may take its time) never hold up a stop; a connection pool built
  // for them after the stop is destroyed unused.
  const authenticated = kubeConfig.applySecurityAuthentication(context);
  try {
    await raceWithSignal(authenticated, signal);
  } catch (error) {
    void authenticated.then(() => (context.getDispatcher() as Dispatcher | undefined)?.destroy()).catch(() => {});
    throw error;
  }
  const pool = context.getDispatcher() as Dispatcher | undefined;

  const cancel = new AbortController();
  const onAbort = () => cancel.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => cancel.abort(new DOMException(`no answer or event from ${options.path} for ${options.timeoutMs} ms`, 'TimeoutError')),
      options.timeoutMs,
    );
    timer.unref();
  };
  try {
    signal.throwIfAborted();
    arm();
    const response = await request(url, { method: 'GET', headers: context.getHeaders(), dispatcher: pool, signal: cancel.signal });
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => {});
      throw new WatchStatusError(response.statusCode);
    }
    arm();
    options.opened();
    const decoder = new TextDecoder();
    // What has arrived after the last newline: an event still coming in.
    let pending = '';
    for await (const chunk of response.body) {
      arm();
      // Only the new text can hold a newline: each byte is searched once, however many chunks an event spans.
      const searchFrom = pending.length;
      pending += decoder.decode(chunk as Uint8Array, { stream: true });
      let start = 0;
      for (let end = pending.indexOf('\n', searchFrom); end >= 0; end = pending.indexOf('\n', start)) {
        const event = parse(pending.slice(start, end));
        start = end + 1;
        if (event !== undefined && !cancel.signal.aborted && !options.event(event)) return;
      }
      pending = pending.slice(start);
      if (pending.length > maxEventLength)
        throw new Error(`a watch event from ${options.path} is longer than ${maxEventLength} characters`);
    }
    const last = parse(pending + decoder.decode());
    if (last !== undefined && !cancel.signal.aborted) options.event(last);
  } catch (error) {
    // Aborted by the caller or timed out: say so, not how undici reports the torn-down request.
    if (cancel.signal.aborted) throw cancel.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    cancel.abort();
    await pool?.destroy().catch(() => {});
  }
}

/**
 * One line of the stream as an event; a blank line is skipped. A line that is not an event ends the
 * watch with an error, as client-go's stream watcher stops on a decoding error: skipping it would
 * lose a change for good, while the informer's restart lists again.
 */
function parse(line: string): WatchEvent | undefined {
  if (line.trim() === '') return undefined;
  let value: { type?: unknown; object?: unknown } | null;
  try {
    value = JSON.parse(line) as { type?: unknown; object?: unknown } | null;
  } catch {
    throw new Error('a watch event that is not JSON');
  }
  if (typeof value?.type !== 'string') throw new Error('a watch event without a type');
  return { type: value.type, object: value.object };
}
