// The watch an informer generation runs on: client-node's Watch, made stoppable at any moment.
// client-node's ListWatch can only abort a watch once its response headers arrived (Watch.watch
// resolves with the AbortController only then), so a watch that hangs before answering outlives
// stop() for up to the client's 30 s timeout, and a ListWatch that is stopped while it sleeps
// before reconnecting starts one more watch afterwards. Here the controller is handed back at
// once, a stopped generation never starts a watch, and each request's own connection pool is
// destroyed when the watch ends, so nothing lingers after close().
import { type KubeConfig, type RequestContext, Watch } from '@kubernetes/client-node';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;
// biome-ignore lint/suspicious/noExplicitAny: client-node's Watch declares its callbacks with any; the override must match
type WatchCallback = (phase: string, apiObj: any, watchObj?: any) => void;
type WatchQuery = Record<string, string | number | boolean | undefined>;

export interface InformerWatchOptions {
  /** Aborted when the informer generation this watch belongs to is stopped. */
  stopped: AbortSignal;
  /** Applied to every object before the ListWatch sees it (keeps only what the cache may hold). */
  project(object: unknown): unknown;
  /** A watch answered 200, or delivered an event or bookmark: the connection is alive. */
  onActivity(): void;
}

export class InformerWatch extends Watch {
  readonly #kubeConfig: KubeConfig;
  readonly #options: InformerWatchOptions;
  readonly #pools = new Set<Dispatcher>();
  readonly #closing = new Set<Promise<void>>();

  constructor(kubeConfig: KubeConfig, options: InformerWatchOptions) {
    super(kubeConfig);
    this.#kubeConfig = kubeConfig;
    this.#options = options;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the same signature as client-node's Watch.watch
  override async watch(path: string, queryParams: WatchQuery, callback: WatchCallback, done: (err: any) => void): Promise<AbortController> {
    const controller = new AbortController();
    const { stopped, project, onActivity } = this.#options;
    if (stopped.aborted) {
      controller.abort();
      return controller;
    }
    // Ours to abort: ListWatch (stop, reconnect) or the generation stopping. Either way nobody
    // waits for this watch's end any more, so `done` is not called for it.
    const cancelled = AbortSignal.any([controller.signal, stopped]);
    let pool: Dispatcher | undefined;
    let ended = false;
    const release = () => {
      if (pool === undefined) return;
      this.#destroy(pool);
      pool = undefined;
    };
    const onCancel = () => release();
    cancelled.addEventListener('abort', onCancel, { once: true });

    // Watch.watch reads `this.config` synchronously up to its first await, which is this call:
    // a per-request view of the kubeconfig lets us learn the connection pool it builds.
    const kubeConfig = this.#kubeConfig;
    this.config = Object.create(kubeConfig, {
      applySecurityAuthentication: {
        value: async (context: RequestContext) => {
          await kubeConfig.applySecurityAuthentication(context);
          pool = context.getDispatcher();
          if (pool !== undefined) this.#pools.add(pool);
          if (cancelled.aborted) release();
        },
      },
    }) as KubeConfig;

    const started = super.watch(
      path,
      { ...queryParams, allowWatchBookmarks: true },
      (phase, apiObj) => {
        if (cancelled.aborted) return;
        onActivity();
        // The raw event (third argument) is withheld: it still holds the unprojected object.
        callback(phase, phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED' ? project(apiObj) : apiObj);
      },
      (err) => {
        ended = true;
        cancelled.removeEventListener('abort', onCancel);
        release();
        if (!cancelled.aborted) done(err);
      },
    );
    this.config = kubeConfig;
    void started.then(
      (inner) => {
        if (cancelled.aborted) inner.abort();
        else {
          cancelled.addEventListener('abort', () => inner.abort(), { once: true });
          if (!ended) onActivity();
        }
      },
      (error: unknown) => {
        release();
        if (!cancelled.aborted) done(error);
      },
    );
    return controller;
  }

  /** Destroys every connection pool still open (hanging requests included) and waits for it. */
  async close(): Promise<void> {
    for (const pool of this.#pools) this.#destroy(pool);
    await Promise.all(this.#closing);
  }

  #destroy(pool: Dispatcher): void {
    if (!this.#pools.delete(pool)) return;
    const closing = pool.destroy().catch(() => {});
    this.#closing.add(closing);
    void closing.then(() => this.#closing.delete(closing));
  }
}
