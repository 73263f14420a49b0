import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createHealthApp } from './health-app.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function start(reasons: string[] = [], registry = new Registry()): Promise<string> {
  server = createServer(createHealthApp({ readiness: { reasons: () => reasons }, registry }));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function call(
  url: string,
  method = 'GET',
): Promise<{ status: number; type: string | undefined; length: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], length: res.headers['content-length'], text }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the health and metrics listener', () => {
  it.each(['/livez', '/healthz', '/readyz', '/healthz?verbose=1'])('answers GET %s with a plain "ok"', async (path) => {
    const base = await start();
    expect(await call(`${base}${path}`)).toEqual({ status: 200, type: 'text/plain; charset=utf-8', length: '2', text: 'ok' });
  });

  it('answers /readyz with 503 and every reason while not ready', async () => {
    const base = await start(['discovery has not loaded', 'informer secrets not synced']);
    expect(await call(`${base}/readyz`)).toMatchObject({
      status: 503,
      text: 'not ready: discovery has not loaded; informer secrets not synced',
    });
    expect((await call(`${base}/livez`)).status).toBe(200);
  });

  it('serves the registry in its own exposition format', async () => {
    const registry = new Registry();
    new Counter({ name: 'health_test_total', help: 'A test counter.', registers: [registry] }).inc(3);
    const base = await start([], registry);
    const metrics = await call(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toBe(registry.contentType);
    expect(metrics.text).toContain('health_test_total 3');
  });

  it('answers 500 with the reason when the metrics cannot be collected', async () => {
    const registry = new Registry();
    new Counter({
      name: 'broken_total',
      help: 'Fails to collect.',
      registers: [registry],
      collect() {
        throw new Error('collector failed');
      },
    });
    const base = await start([], registry);
    expect(await call(`${base}/metrics`)).toMatchObject({ status: 500, text: 'cannot collect metrics: collector failed' });
  });

  it('answers HEAD like GET, without a body', async () => {
    const base = await start();
    expect(await call(`${base}/healthz`, 'HEAD')).toEqual({ status: 200, type: 'text/plain; charset=utf-8', length: '2', text: '' });
  });

  it.each([
    ['GET', '/'],
    ['GET', '/metricsz'],
    ['GET', '/healthz/extra'],
    ['POST', '/healthz'],
    ['DELETE', '/metrics'],
    ['OPTIONS', '/healthz'],
    ['GET', '/healthz/'],
    ['GET', '/HEALTHZ'],
  ])('answers %s %s with 404', async (method, path) => {
    const base = await start();
    expect(await call(`${base}${path}`, method)).toMatchObject({ status: 404, text: 'not found' });
  });
});
