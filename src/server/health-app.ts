// The plain-HTTP side: liveness, readiness, health and metrics, on their own port so probes and
// scrapes never compete with admission traffic for TLS handshakes. An express app with the
// webhook's settings (no ETag, no X-Powered-By, no query parser); paths match exactly.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import { send } from './respond.ts';

export interface Readiness {
  /** Why the server is not ready, or [] when it is. */
  reasons(): string[];
}

const textPlain = 'text/plain; charset=utf-8';

export function createHealthApp(options: { readiness: Readiness; registry: Registry }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use((req: Request, res: Response, next: NextFunction) => {
    // GET and HEAD only: no automatic OPTIONS answers.
    if (req.method !== 'GET' && req.method !== 'HEAD') send(res, 404, textPlain, 'not found');
    else next();
  });
  const head = (req: Request) => req.method === 'HEAD';
  app.get(['/livez', '/healthz'], (req, res) => send(res, 200, textPlain, 'ok', head(req)));
  app.get('/readyz', (req, res) => {
    const reasons = options.readiness.reasons();
    if (reasons.length === 0) send(res, 200, textPlain, 'ok', head(req));
    else send(res, 503, textPlain, `not ready: ${reasons.join('; ')}`, head(req));
  });
  app.get('/metrics', async (req, res) => {
    let text: string;
    try {
      text = await options.registry.metrics();
    } catch (error) {
      send(res, 500, textPlain, `cannot collect metrics: ${error instanceof Error ? error.message : String(error)}`, head(req));
      return;
    }
    send(res, 200, options.registry.contentType, text, head(req));
  });
  app.use((req: Request, res: Response) => send(res, 404, textPlain, 'not found', head(req)));
  return app;
}
