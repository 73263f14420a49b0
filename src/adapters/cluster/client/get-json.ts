// A GET of any API path (or another call), answered as parsed JSON: for what the typed client has no
// call for (one group version's APIResourceList, a server-side apply of a custom resource) or would
// convert (a LIST of any resource, whose items must stay the JSON the API server stores). Sent through the same middleware and transport as the typed calls.
import { ApiException, HttpMethod, type KubeConfig, ServerConfiguration } from '@kubernetes/client-node';
import { type KubeRequests, raceWithSignal, undiciRequests } from './kube.ts';

/** The parsed body of GET path; a status outside 2xx is an ApiException, as the typed calls throw. */
export async function getJson(kubeConfig: KubeConfig, requests: KubeRequests, path: string, signal: AbortSignal): Promise<unknown> {
  return sendJson(kubeConfig, requests, { method: HttpMethod.GET, path }, signal);
}

export interface JsonRequest {
  method: HttpMethod;
  /** The path, with its query. */
  path: string;
  body?: { contentType: string; text: string };
}

/** Any call whose answer is JSON (or empty: undefined), through the same middleware and transport as the typed calls. */
export async function sendJson(
  kubeConfig: KubeConfig,
  requests: KubeRequests,
  request: JsonRequest,
  signal: AbortSignal,
): Promise<unknown> {
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  const context = new ServerConfiguration(server, {}).makeRequestContext(request.path, request.method);
  context.setHeaderParam('Accept', 'application/json');
  if (request.body !== undefined) {
    context.setHeaderParam('Content-Type', request.body.contentType);
    context.setBody(request.body.text);
  }
  await kubeConfig.applySecurityAuthentication(context);
  const { middleware = [], httpApi = undiciRequests } = requests.options(signal);
  for (const step of middleware) await step.pre(context).toPromise();
  const response = await raceWithSignal(httpApi.send(context).toPromise(), signal);
  const text = await raceWithSignal(response.body.text(), signal);
  if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
    throw new ApiException(response.httpStatusCode, `HTTP-Code: ${response.httpStatusCode}`, text, response.headers);
  }
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
