// The transport under every typed client-node call (src/adapters/cluster/client/kube.ts, undiciRequests):
// client-node's own library sends with fetch, ours with undici's request(). Both are given the same
// requests, built and authenticated by client-node, against the stand-in API server, and must hand
// client-node the same response: status, headers, and the body as text, bytes and a stream.
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import {
  type HttpLibrary,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  type ResponseContext,
  ServerConfiguration,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterAuthorizer } from '../../src/adapters/cluster/authorization/authorizer.ts';
import { undiciRequests } from '../../src/adapters/cluster/client/kube.ts';
import { ruleTableAuthorizer, type StandInApiServer, startStandInApiServer, subjectAccessReviewRouteName } from '../apiserver/index.ts';

let api: StandInApiServer;
const big = 'x'.repeat(200_000);

beforeAll(async () => {
  api = await startStandInApiServer({
    authorizer: ruleTableAuthorizer([{ matches: () => true, result: { decision: 'allow', reason: 'proxied' } }]),
    routes: [
      {
        name: 'echo',
        method: 'POST',
        pattern: '/echo',
        handle: (request, respond) =>
          respond.json(
            201,
            { got: request.body, contentType: request.headers['content-type'], auth: request.headers.authorization !== undefined },
            { Warning: ['299 - "first"', '299 - "second"'], 'X-Single': 'one' },
          ),
      },
      { name: 'big', method: 'GET', pattern: '/big', handle: (_request, respond) => respond.json(200, { big }) },
      {
        name: 'throttled',
        method: 'GET',
        pattern: '/throttled',
        handle: (_request, respond) => respond.json(429, { kind: 'Status', code: 429 }, { 'Retry-After': '3' }),
      },
      { name: 'slow', method: 'GET', pattern: '/slow', handle: () => new Promise<void>((resolve) => setTimeout(resolve, 5_000)) },
    ],
  });
});
afterAll(() => api.close());

async function send(library: HttpLibrary, method: HttpMethod, path: string, body?: string, signal?: AbortSignal): Promise<ResponseContext> {
  const context = new ServerConfiguration(api.url, {}).makeRequestContext(path, method);
  context.setHeaderParam('Accept', 'application/json');
  if (body !== undefined) {
    context.setHeaderParam('Content-Type', 'application/json');
    context.setBody(body);
  }
  if (signal !== undefined) context.setSignal(signal);
  await api.kubeConfig.applySecurityAuthentication(context);
  return library.send(context).toPromise();
}

/** What client-node reads from a response, with the headers a transport adds itself left out. */
async function seen(response: ResponseContext, read: 'text' | 'binary' | 'stream') {
  const { date: _date, ...headers } = response.headers;
  let body: string;
  if (read === 'text') body = await response.body.text();
  else if (read === 'binary') body = (await response.body.binary()).toString('utf8');
  else body = await new Response(response.body.stream() as unknown as ReadableStream).text();
  return { status: response.httpStatusCode, headers, body };
}

const fetchLibrary = new IsomorphicFetchHttpLibrary();

describe('undiciRequests: the same response client-node would get from its own fetch transport', () => {
  it.each(['text', 'binary', 'stream'] as const)('a POST with a JSON body, repeated and single headers, read as %s', async (read) => {
    const body = JSON.stringify({ spec: { user: 'alice' } });
    const ours = await seen(await send(undiciRequests, HttpMethod.POST, '/echo', body), read);
    // Theirs is read as text: client-node's own binary() calls resp.buffer(), which undici's
    // Response does not have (it throws); ours gives the bytes.
    const theirs = await seen(await send(fetchLibrary, HttpMethod.POST, '/echo', body), 'text');
    expect(ours).toEqual(theirs);
    expect(ours.status).toBe(201);
    expect(JSON.parse(ours.body)).toEqual({ got: { spec: { user: 'alice' } }, contentType: 'application/json', auth: true });
    expect(ours.headers.warning).toBe('299 - "first", 299 - "second"');
    expect(ours.headers['x-single']).toBe('one');
  });

  it('a large answer, whole', async () => {
    const ours = await seen(await send(undiciRequests, HttpMethod.GET, '/big'), 'text');
    expect(ours).toEqual(await seen(await send(fetchLibrary, HttpMethod.GET, '/big'), 'text'));
    expect(JSON.parse(ours.body).big).toHaveLength(big.length);
  });

  it('an error status with its Retry-After, as a response (client-node turns it into an ApiException)', async () => {
    const ours = await seen(await send(undiciRequests, HttpMethod.GET, '/throttled'), 'text');
    expect(ours).toEqual(await seen(await send(fetchLibrary, HttpMethod.GET, '/throttled'), 'text'));
    expect(ours.status).toBe(429);
    expect(ours.headers['retry-after']).toBe('3');
  });

  it("aborts with the call's signal, rejecting with the signal's reason", async () => {
    const reason = new DOMException('deadline', 'TimeoutError');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    const started = performance.now();
    await expect(send(undiciRequests, HttpMethod.GET, '/slow', undefined, controller.signal)).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

/** An HTTP proxy that only tunnels (CONNECT), as corporate proxies in front of API servers do. */
async function startConnectProxy(): Promise<{ url: string; tunnels: string[]; close: () => Promise<void> }> {
  const tunnels: string[] = [];
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const teardown = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', teardown);
    client.on('error', teardown);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("undiciRequests: the kubeconfig's proxy-url", () => {
  it('goes through the proxy client-node sets up, and still verifies the API server', async () => {
    const proxy = await startConnectProxy();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(api.kubeconfigYaml);
    const cluster = kubeConfig.getCurrentCluster()!;
    kubeConfig.loadFromOptions({
      clusters: [{ ...cluster, proxyUrl: proxy.url }],
      users: kubeConfig.getUsers(),
      contexts: kubeConfig.getContexts(),
      currentContext: kubeConfig.getCurrentContext(),
    });
    const authorizer = createClusterAuthorizer({ kubeConfig });
    try {
      const before = api.calls.count(subjectAccessReviewRouteName);
      const result = await authorizer.authorize({
        user: { username: 'alice' },
        resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'a' },
      });
      expect(result).toMatchObject({ decision: 'allow', reason: 'proxied' });
      expect(api.calls.count(subjectAccessReviewRouteName)).toBe(before + 1);
      expect(proxy.tunnels).toEqual([new URL(api.url).host]);
    } finally {
      await authorizer.close();
      await proxy.close();
    }
  });
});
