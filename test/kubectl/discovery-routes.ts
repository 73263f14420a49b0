// The discovery kubectl reads before any write: /version, /api, /apis and one APIResourceList per
// group version, in the legacy (unaggregated) JSON form kube-apiserver still serves when a client
// asks for it. OpenAPI (/openapi/v2, /openapi/v3) is left unserved: kubectl then falls back to its
// compiled-in types for strategic merge patches and to server-side field validation.
import type { Route } from '../apiserver/index.ts';
import { apiResources, apiVersionOf, servedResources } from './served-resources.ts';

const serverVersion = {
  major: '1',
  minor: '34',
  gitVersion: 'v1.34.0-stand-in',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-08-27T00:00:00Z',
  goVersion: 'go1.24.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function discoveryRoutes(): Route[] {
  const groupVersions = [...new Set(servedResources.map(apiVersionOf))];
  const groups = new Map<string, string[]>();
  for (const type of servedResources) {
    if (type.group === '') continue;
    const versions = groups.get(type.group) ?? [];
    if (!versions.includes(type.version)) versions.push(type.version);
    groups.set(type.group, versions);
  }
  const routes: Route[] = [
    { name: 'discovery /version', method: 'GET', pattern: '/version', handle: (_r, respond) => respond.json(200, serverVersion) },
    {
      name: 'discovery /api',
      method: 'GET',
      pattern: '/api',
      handle: (_r, respond) =>
        respond.json(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }] }),
    },
    {
      name: 'discovery /apis',
      method: 'GET',
      pattern: '/apis',
      handle: (_r, respond) =>
        respond.json(200, {
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: [...groups].map(([name, versions]) => ({
            name,
            versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
            preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
          })),
        }),
    },
  ];
  for (const groupVersion of groupVersions) {
    routes.push({
      name: `discovery ${groupVersion}`,
      method: 'GET',
      pattern: groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`,
      handle: (_r, respond) => respond.json(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: apiResources(groupVersion) }),
    });
  }
  return routes;
}
