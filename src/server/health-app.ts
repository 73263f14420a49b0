// The plain-HTTP side: liveness, readiness, health and metrics, on their own port so probes and
// scrapes never compete with admission traffic for TLS handshakes.
import express, { type Request, type Response } from 'express';
import type { Registry } from 'prom-client';

export interface Readiness {
  /** Why the server is not ready, or [] when it is. */
  reasons(): string[];
}

export function createHealthApp(options: { readiness: Readiness; registry: Registry }): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/livez', (_req: Request, res: Response) => {
    res.type('text/plain').send('ok');
  });
  app.get('/healthz', (_req: Request, res: Response) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', (_req: Request, res: Response) => {
    const reasons = options.readiness.reasons();
    if (reasons.length === 0) res.type('text/plain').send('ok');
    else res.status(503).type('text/plain').send(`not ready: ${reasons.join('; ')}`);
  });
  app.get('/metrics', async (_req: Request, res: Response) => {
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });
  app.use((_req: Request, res: Response) => {
    res.status(404).type('text/plain').send('not found');
  });
  return app;
}
