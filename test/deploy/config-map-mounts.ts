// What the kubelet puts into the webhook's container from the chart's ConfigMaps: each ConfigMap volume
// the container mounts, projected as one file per key (or per `items` entry) under its mountPath. Tests
// write them under a scratch root and read the server's flags through the same paths the pod sees.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { type KubeObject, only } from './helm.ts';

interface ConfigMapVolume {
  name: string;
  configMap?: { name: string; items?: Array<{ key: string; path: string }> };
}
interface MountingContainer {
  volumeMounts?: Array<{ name: string; mountPath: string; subPath?: string }>;
}
interface PodTemplate {
  spec: { template: { spec: { containers: MountingContainer[]; volumes?: ConfigMapVolume[] } } };
}

export interface ProjectedMounts {
  /** The local file behind a path inside the container; the path itself when no ConfigMap is mounted there. */
  localPath(podPath: string): string;
  /** The mountPaths written, in the container's order. */
  mountPaths: string[];
}

/** Projects the chart's ConfigMap volumes of the Deployment's first container under `root`. */
export async function projectConfigMapMounts(objects: KubeObject[], root: string): Promise<ProjectedMounts> {
  const pod = only<KubeObject & PodTemplate>(objects, 'Deployment').spec.template.spec;
  const mountPaths: string[] = [];
  for (const mount of pod.containers[0]?.volumeMounts ?? []) {
    const source = pod.volumes?.find((v) => v.name === mount.name)?.configMap;
    if (source === undefined) continue;
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.name) as
      | (KubeObject & { data?: Record<string, string> })
      | undefined;
    if (configMap === undefined) throw new Error(`volume ${mount.name} mounts ConfigMap ${source.name}, which the chart does not render`);
    if (mount.subPath !== undefined) throw new Error(`volume ${mount.name}: subPath mounts are not projected here`);
    const data = configMap.data ?? {};
    const files = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    for (const { key, path } of files) {
      if (data[key] === undefined) throw new Error(`ConfigMap ${source.name} has no key ${key}`);
      const target = join(root, mount.mountPath, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, data[key]);
    }
    mountPaths.push(mount.mountPath);
  }
  return {
    mountPaths,
    localPath(podPath) {
      const inside = mountPaths.some((mountPath) => {
        const rest = relative(mountPath, podPath);
        return rest !== '' && !rest.startsWith('..') && !rest.startsWith(sep);
      });
      return inside ? join(root, podPath) : podPath;
    },
  };
}
