// What a workload's controllers would create, down to the pods: a Deployment's ReplicaSet and its
// pod, a CronJob's Job and its pod, one pod for every other kind. Each created object comes with
// the identity its controller writes as, so admission can be asked what it would say to that
// controller: the answer the rollout gets, not the one `kubectl apply` of the workload gets.
import type { KubeObject, UserInfo } from '../api/types.ts';
import { isPlainObject } from '../util/plain-object.ts';
import { type ControllerName, Controllers, controllerRef, controllerUser } from './controllers.ts';
import { podTemplateHash, stableUid } from './names.ts';
import { type PodTemplate, podFromTemplate, templateOf } from './pod-from-template.ts';

/** An object a controller would create, and what controllers would create from it in turn. */
export interface Created {
  object: KubeObject;
  controller: ControllerName;
  user: UserInfo;
  creates: Created[];
}

export interface ExpandOptions {
  /** When the CronJob's Job is scheduled; its name and scheduled-timestamp annotation derive from it. */
  now: Date;
}

type Expander = (workload: KubeObject, options: ExpandOptions) => Created[];

const expanders: Record<string, Expander> = {
  'apps/v1 Deployment': deploymentCreates,
  'apps/v1 ReplicaSet': (w) => podsOf(w, Controllers.replicaSet),
  'v1 ReplicationController': (w) => podsOf(w, Controllers.replicationController),
  'apps/v1 StatefulSet': statefulSetCreates,
  'apps/v1 DaemonSet': daemonSetCreates,
  'batch/v1 Job': (w) => jobCreates(w),
  'batch/v1 CronJob': cronJobCreates,
};

/** Whether the object is a workload whose controller creates pods. */
export function isWorkload(object: KubeObject): boolean {
  return `${object.apiVersion} ${object.kind}` in expanders;
}

/**
 * What the workload's controllers would create, in creation order; [] for other kinds. The workload
 * should carry its namespace: created objects take it.
 */
export function expandWorkload(workload: KubeObject, options: ExpandOptions): Created[] {
  const expander = expanders[`${workload.apiVersion} ${workload.kind}`];
  if (expander === undefined || templateOf(workload, workload.kind === 'CronJob' ? 'jobTemplate' : 'template') === undefined) return [];
  return expander(withUid(workload), options);
}

function created(object: KubeObject, controller: ControllerName, creates: Created[] = []): Created {
  return { object, controller, user: controllerUser(controller), creates };
}

// The uid an API server would have assigned; the owner references and the Job's labels carry it.
function withUid(object: KubeObject): KubeObject {
  if (object.metadata?.uid) return object;
  return { ...object, metadata: { ...object.metadata, uid: stableUid(object) } };
}

function podsOf(owner: KubeObject, controller: ControllerName, template = templateOf(owner)): Created[] {
  if (template === undefined) return [];
  return [created(podFromTemplate(template, owner, controllerRef(owner)), controller)];
}

/** The deployment controller's new ReplicaSet (getNewReplicaSet), then that ReplicaSet's pod. */
function deploymentCreates(deployment: KubeObject): Created[] {
  const template = templateOf(deployment)!;
  const spec = deployment.spec as Record<string, unknown>;
  const hash = podTemplateHash([template, spec.collisionCount ?? null]);
  const labels = { ...template.metadata?.labels, 'pod-template-hash': hash };
  const selector = isPlainObject(spec.selector) ? (spec.selector as { matchLabels?: Record<string, string> }) : {};
  const replicaSet = withUid({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${deployment.metadata?.name}-${hash}`,
      namespace: deployment.metadata?.namespace ?? '',
      labels,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: [controllerRef(deployment)],
    },
    spec: {
      replicas: spec.replicas ?? 1,
      ...(spec.minReadySeconds === undefined ? {} : { minReadySeconds: spec.minReadySeconds }),
      selector: { ...selector, matchLabels: { ...selector.matchLabels, 'pod-template-hash': hash } },
      template: { ...template, metadata: { ...template.metadata, labels } },
    },
  });
  return [created(replicaSet, Controllers.deployment, podsOf(replicaSet, Controllers.replicaSet))];
}

/** newStatefulSetPod for the first ordinal: its name, hostname, subdomain, identity labels and claims. */
function statefulSetCreates(set: KubeObject): Created[] {
  const [pod] = podsOf(set, Controllers.statefulSet);
  const spec = set.spec as Record<string, unknown>;
  const ordinals = isPlainObject(spec.ordinals) ? spec.ordinals : {};
  const ordinal = typeof ordinals.start === 'number' ? ordinals.start : 0;
  const name = `${set.metadata?.name}-${ordinal}`;
  const object = pod!.object;
  const { generateName: _, ...metadata } = object.metadata!;
  object.metadata = {
    ...metadata,
    name,
    labels: { ...metadata.labels, 'statefulset.kubernetes.io/pod-name': name, 'apps.kubernetes.io/pod-index': String(ordinal) },
  };
  const podSpec = object.spec as Record<string, unknown>;
  podSpec.hostname = name;
  if (typeof spec.serviceName === 'string' && spec.serviceName !== '') podSpec.subdomain = spec.serviceName;
  const claims = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates.filter(isPlainObject) : [];
  if (claims.length > 0) {
    const claimNames = new Set(claims.map((c) => (c.metadata as { name?: string } | undefined)?.name ?? ''));
    const volumes = Array.isArray(podSpec.volumes) ? podSpec.volumes : [];
    podSpec.volumes = [
      ...[...claimNames].map((claim) => ({
        name: claim,
        persistentVolumeClaim: { claimName: `${claim}-${set.metadata?.name}-${ordinal}` },
      })),
      ...volumes.filter((v) => !(isPlainObject(v) && claimNames.has(v.name as string))),
    ];
  }
  return [pod!];
}

// The taints every DaemonSet pod tolerates (AddOrUpdateDaemonPodTolerations), in upstream's order.
const daemonTolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const networkUnavailable = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

/** CreatePodTemplate: the daemon tolerations and the revision hash label, then the pod. */
function daemonSetCreates(set: KubeObject): Created[] {
  const template = structuredClone(templateOf(set)!);
  const spec = (template.spec ??= {});
  const wanted = spec.hostNetwork === true ? [...daemonTolerations, networkUnavailable] : daemonTolerations;
  let tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
  for (const toleration of wanted) tolerations = addOrUpdateToleration(tolerations, toleration);
  spec.tolerations = tolerations;
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, 'controller-revision-hash': podTemplateHash(templateOf(set)) },
  };
  return podsOf(set, Controllers.daemonSet, template);
}

// AddOrUpdateTolerationInPodSpec: a toleration with the same key, operator, value and effect is
// replaced in place; otherwise it is appended.
function addOrUpdateToleration(tolerations: unknown[], toleration: Record<string, string>): unknown[] {
  const matches = (t: unknown) =>
    isPlainObject(t) &&
    (t.key ?? '') === toleration.key &&
    (t.operator ?? '') === toleration.operator &&
    (t.value ?? '') === (toleration.value ?? '') &&
    (t.effect ?? '') === toleration.effect;
  if (!tolerations.some(matches)) return [...tolerations, toleration];
  return tolerations.map((t) => (matches(t) ? toleration : t));
}

/**
 * The Job's pod: the selector labels the API server adds to its template at create (unless the
 * selector is manual), the job-tracking finalizer, and for Indexed jobs the first completion index.
 */
function jobCreates(job: KubeObject): Created[] {
  const template = structuredClone(templateOf(job)!);
  const spec = job.spec as Record<string, unknown>;
  const metadata = (template.metadata ??= {});
  if (spec.manualSelector !== true) {
    const name = job.metadata?.name ?? '';
    const uid = job.metadata?.uid ?? '';
    metadata.labels = {
      'job-name': name,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'batch.kubernetes.io/controller-uid': uid,
      ...metadata.labels,
    };
  }
  const finalizer = 'batch.kubernetes.io/job-tracking';
  metadata.finalizers = [...(metadata.finalizers ?? []).filter((f) => f !== finalizer), finalizer];
  const pods = podsOf(job, Controllers.job, template);
  if (spec.completionMode === 'Indexed') indexPod(pods[0]!.object, job.metadata?.name ?? '');
  return pods;
}

// An Indexed Job's pod for completion index 0: the index as annotation, label and environment
// variable, a hostname and a generateName that carry it.
function indexPod(pod: KubeObject, jobName: string): void {
  const index = '0';
  const key = 'batch.kubernetes.io/job-completion-index';
  const metadata = pod.metadata!;
  metadata.generateName = `${jobName}-${index}-`;
  metadata.annotations = { ...metadata.annotations, [key]: index };
  metadata.labels = { ...metadata.labels, [key]: index };
  const podSpec = pod.spec as Record<string, unknown>;
  podSpec.hostname = `${jobName}-${index}`;
  const env = { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${key}']` } } };
  for (const field of ['initContainers', 'containers']) {
    const containers = podSpec[field];
    if (!Array.isArray(containers)) continue;
    for (const container of containers.filter(isPlainObject)) {
      const current = Array.isArray(container.env) ? container.env : [];
      if (!current.some((e) => isPlainObject(e) && e.name === env.name)) container.env = [...current, env];
    }
  }
}

/** getJobFromTemplate2: the Job for the scheduled time, then the Job's pod as the job controller makes it. */
function cronJobCreates(cronJob: KubeObject, { now }: ExpandOptions): Created[] {
  const jobTemplate = templateOf(cronJob, 'jobTemplate') as { metadata?: PodTemplate['metadata']; spec?: Record<string, unknown> };
  const scheduled = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const job = withUid({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${cronJob.metadata?.name}-${Math.floor(scheduled.getTime() / 60_000)}`,
      namespace: cronJob.metadata?.namespace ?? '',
      labels: { ...jobTemplate.metadata?.labels },
      annotations: {
        ...jobTemplate.metadata?.annotations,
        'batch.kubernetes.io/cronjob-scheduled-timestamp': scheduled.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
      ownerReferences: [controllerRef(cronJob)],
    },
    spec: structuredClone(jobTemplate.spec ?? {}),
  });
  return [created(job, Controllers.cronJob, templateOf(job) === undefined ? [] : jobCreates(job))];
}
