// The plain-HTTP side: liveness, readiness, health and metrics, on their own port so probes and
// scrapes never compete with admission traffic for TLS handshakes. Four fixed GET routes need no
// framework; a plain request listener keeps express (and its dependencies' memory) out of the pod.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { send } from './send.ts';

export interface Readiness {
  /** Why the server is not ready, or [] when it is. */
  reasons(): string[];
}

const textPlain = 'text/plain; charset=utf-8';

export function createHealthApp(options: { readiness: Readiness; registry: Registry }): RequestListener {
  const routes: Record<string, (res: ServerResponse, head: boolean) => void | Promise<void>> = {
    '/livez': (res, head) => send(res, 200, textPlain, 'ok', head),
    '/healthz': (res, head) => send(res, 200, textPlain, 'ok', head),
    '/readyz': (res, head) => {
      const reasons = options.readiness.reasons();
      if (reasons.length === 0) send(res, 200, textPlain, 'ok', head);
      else send(res, 503, textPlain, `not ready: ${reasons.join('; ')}`, head);
    },
    '/metrics': async (res, head) => {
      let text: string;
      try {
        text = await options.registry.metrics();
      } catch (error) {
        send(res, 500, textPlain, `cannot collect metrics: ${error instanceof Error ? error.message : String(error)}`, head);
        return;
      }
      send(res, 200, options.registry.contentType, text, head);
    },
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const head = req.method === 'HEAD';
    const route = req.method === 'GET' || head ? routes[pathOf(req.url)] : undefined;
    if (route === undefined) {
      send(res, 404, textPlain, 'not found', head);
      return;
    }
    void route(res, head);
  };
}

/** The path without the query string ("/metrics?x=1" is "/metrics"). */
function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}
