// One discovery pass against kube-apiserver: /api and /apis for the group versions, then every
// group version's APIResourceList, all in parallel and all bounded by one signal. A group version
// that fails (an aggregated API that is down) is reported, not fatal: the rest still count.
import { ApisApi, CoreApi, type KubeConfig, type V1APIGroupList, type V1APIVersions } from '@kubernetes/client-node';
import type { APIResource } from '../../local/cluster-state.ts';
import { getJson } from '../client/get-json.ts';
import { describeKubeError, type KubeRequests, raceWithSignal } from '../client/kube.ts';

export interface GroupVersionRef {
  group: string;
  version: string;
}

export interface DiscoveryPass {
  /** Core first, then /apis in server order; versions as the server lists them. */
  groupVersions: GroupVersionRef[];
  /** Resource lists fetched in this pass, by "group/version". */
  resources: Map<string, APIResource[]>;
  /** Group versions whose resource list could not be fetched, with client-go-style error text. */
  failures: Map<string, string>;
  /** Set when /api or /apis itself failed: that half of the group list is unknown this pass. */
  listFailures: { core?: string; groups?: string };
}

/** Progress of a pass, so a caller interested in one group need not wait for the slowest other. */
export interface DiscoveryObserver {
  /** /api and /apis have answered (or failed): the group versions this pass will fetch. */
  listed(groupVersions: readonly GroupVersionRef[], listFailures: DiscoveryPass['listFailures']): void;
  /** One group version's list arrived (resources) or failed (undefined). */
  settled(groupVersion: GroupVersionRef, resources: APIResource[] | undefined): void;
}

export function groupVersionKey({ group, version }: GroupVersionRef): string {
  return group === '' ? version : `${group}/${version}`;
}

export class DiscoveryClient {
  readonly #kubeConfig: KubeConfig;
  readonly #requests: KubeRequests;
  readonly #server: string;
  readonly #coreApi: CoreApi;
  readonly #apisApi: ApisApi;

  constructor(kubeConfig: KubeConfig, requests: KubeRequests) {
    this.#kubeConfig = kubeConfig;
    this.#requests = requests;
    this.#server = kubeConfig.getCurrentCluster()?.server ?? '';
    this.#coreApi = kubeConfig.makeApiClient(CoreApi);
    this.#apisApi = kubeConfig.makeApiClient(ApisApi);
  }

  async discover(signal: AbortSignal, observer?: DiscoveryObserver): Promise<DiscoveryPass> {
    const [core, groups] = await Promise.allSettled([
      raceWithSignal(this.#coreApi.getAPIVersions({}, this.#requests.options(signal)), signal),
      raceWithSignal(this.#apisApi.getAPIVersions({}, this.#requests.options(signal)), signal),
    ]);
    const listFailures: DiscoveryPass['listFailures'] = {};
    const groupVersions: GroupVersionRef[] = [];
    if (core.status === 'fulfilled') groupVersions.push(...coreGroupVersions(core.value));
    else listFailures.core = this.#describe(core.reason, '/api');
    if (groups.status === 'fulfilled') groupVersions.push(...apisGroupVersions(groups.value));
    else listFailures.groups = this.#describe(groups.reason, '/apis');
    observer?.listed(groupVersions, listFailures);

    const resources = new Map<string, APIResource[]>();
    const failures = new Map<string, string>();
    await Promise.all(
      groupVersions.map(async (gv) => {
        const path = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
        let list: APIResource[] | undefined;
        try {
          list = await this.#resourceList(path, signal);
          resources.set(groupVersionKey(gv), list);
        } catch (error) {
          failures.set(groupVersionKey(gv), this.#describe(error, path));
        }
        observer?.settled(gv, list);
      }),
    );
    return { groupVersions, resources, failures, listFailures };
  }

  /** GET of one group version's APIResourceList; the typed client has no call for arbitrary ones. */
  async #resourceList(path: string, signal: AbortSignal): Promise<APIResource[]> {
    const list = (await getJson(this.#kubeConfig, this.#requests, path, signal)) as { resources?: unknown };
    if (!Array.isArray(list.resources)) throw new Error(`${path}: response is not an APIResourceList`);
    return list.resources.filter(isApiResource);
  }

  #describe(error: unknown, path: string): string {
    // Go's url.Error spells the method "Get".
    return describeKubeError(error, 'Get', `${this.#server}${path}`);
  }
}

function coreGroupVersions(versions: V1APIVersions): GroupVersionRef[] {
  return (versions.versions ?? []).map((version) => ({ group: '', version }));
}

function apisGroupVersions(list: V1APIGroupList): GroupVersionRef[] {
  return (list.groups ?? []).flatMap((group) => (group.versions ?? []).map((v) => ({ group: group.name, version: v.version })));
}

function isApiResource(value: unknown): value is APIResource {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.name === 'string' && typeof r.kind === 'string' && typeof r.namespaced === 'boolean';
}
