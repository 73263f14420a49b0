// A TCP pass-through in front of the stand-in, for faults the server itself cannot inject: cutting
// connections that are already established (a watch stream mid-flight, as a load balancer or a
// restarting apiserver would). TLS passes through untouched, so the client still verifies the
// stand-in's certificate (issued for 127.0.0.1).
import { connect, createServer, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeconfigYaml } from './kubeconfig.ts';
import type { StandInApiServer } from './server.ts';

export interface TcpProxy {
  /** A kubeconfig for the stand-in that goes through the proxy. */
  kubeConfig: KubeConfig;
  /** Connections currently open through the proxy. */
  readonly openConnections: number;
  /** Resets every open connection (both sides), as a network failure would. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(api: StandInApiServer): Promise<TcpProxy> {
  const target = new URL(api.url);
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const teardown = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', teardown).on('close', teardown);
    upstream.on('error', teardown).on('close', teardown);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigYaml({ server: `https://127.0.0.1:${address.port}`, caCert: api.caCert, token: api.token }));

  const dropAll = () => {
    for (const [client, upstream] of pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    pairs.clear();
  };
  return {
    kubeConfig,
    get openConnections() {
      return pairs.size;
    },
    dropAll,
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
