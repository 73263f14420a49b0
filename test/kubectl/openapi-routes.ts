// Just enough OpenAPI v3 for kubectl's default `--validate=strict`: the /openapi/v3 index and, per
// group version, each item path's PATCH operation tagged with its group/version/kind and the
// `fieldValidation` query parameter. That is how kubectl decides the server validates fields itself,
// so it sends fieldValidation=Strict instead of fetching schemas to validate client-side. The PATCH
// operations declare no request body types, so kubectl computes apply patches from its compiled-in
// types (strategic merge for built-ins, JSON merge for custom resources), not from schemas — which
// this stand-in does not serve. (The stand-in accepts fieldValidation but does not check fields.)
import type { Route } from '../apiserver/index.ts';
import { apiVersionOf, servedResources } from './served-resources.ts';

function documentPath(groupVersion: string): string {
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

function document(groupVersion: string): unknown {
  const paths: Record<string, unknown> = {};
  for (const type of servedResources.filter((t) => apiVersionOf(t) === groupVersion)) {
    const collection = type.namespaced ? `/${documentPath(groupVersion)}/namespaces/{namespace}/${type.resource}` : `/${documentPath(groupVersion)}/${type.resource}`;
    paths[`${collection}/{name}`] = {
      patch: {
        operationId: `patch${type.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.34.0' }, paths, components: { schemas: {} } };
}

export function openApiRoutes(): Route[] {
  const groupVersions = [...new Set(servedResources.map(apiVersionOf))];
  const routes: Route[] = [
    {
      name: 'openapi v3 index',
      method: 'GET',
      pattern: '/openapi/v3',
      handle: (_r, respond) =>
        respond.json(200, {
          paths: Object.fromEntries(groupVersions.map((gv) => [documentPath(gv), { serverRelativeURL: `/openapi/v3/${documentPath(gv)}?hash=stand-in` }])),
        }),
    },
  ];
  for (const groupVersion of groupVersions) {
    routes.push({ name: `openapi v3 ${groupVersion}`, method: 'GET', pattern: `/openapi/v3/${documentPath(groupVersion)}`, handle: (_r, respond) => respond.json(200, document(groupVersion)) });
  }
  return routes;
}
