// What `audit` says of one object: each thing the chain would do to it, or to what its controllers
// would create from it — deny, warn (a plugin in warn or audit mode that would deny), or change
// (the patch, plugin by plugin) — with upstream's message and our
// explanation. An object the chain would admit unchanged has no findings and is only counted.
import type { Operation } from 'fast-json-patch';
import { AdmissionChain, annotationKey } from '../admission/chain.ts';
import type { Deadline } from '../admission/deadline.ts';
import { handleAdmission } from '../admission/handler.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import { controllerOf } from '../workloads/index.ts';
import type { ReviewedObject } from './review.ts';

export type FindingResult = 'deny' | 'warn' | 'mutate';

export interface Finding {
  plugin: string;
  result: FindingResult;
  /** For deny and warn: the plugin's mode (a warn finding is a plugin in warn or audit mode that would deny). */
  mode?: string;
  /** Set when the finding is about an object the controllers would create, not the audited one itself. */
  object?: string;
  /** Who creates that object: the controller's identity. */
  user?: string;
  code?: number;
  message?: string;
  /** Why, and what would admit it, where the plugin says (OwnerReferencesPermissionEnforcement). */
  explanation?: string[];
  /** For mutate: the JSONPatch operations this plugin's writes account for. */
  patch?: Operation[];
}

export interface AuditResult {
  source: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** What it belongs to: its controller ("ReplicaSet/web-7d9"), or the object itself ("Deployment/web"). */
  owner: string;
  /** Who the audit takes to create it (--user). */
  user: string;
  findings: Finding[];
}

/** The audited objects' counts; what their controllers would create is counted under them. */
export interface AuditSummary {
  /** Objects audited. */
  objects: number;
  /** Objects their controllers would create, audited as those controllers. */
  created: number;
  denied: number;
  warned: number;
  mutated: number;
  /** Objects read but not audited: kinds no plugin is asked about, or made by a workload audited itself. */
  skipped: number;
  /** Documents or lists that could not be audited. */
  errors: number;
}

export const emptySummary = (): AuditSummary => ({ objects: 0, created: 0, denied: 0, warned: 0, mutated: 0, skipped: 0, errors: 0 });

/** The audited object's result: its findings and those of everything created from it, each under its own deadline. */
export async function auditResult(reviewed: ReviewedObject, steps: readonly MutatingStep[], timeoutMs: number): Promise<AuditResult> {
  const { request } = reviewed;
  const object = request.object!;
  const controller = controllerOf(object);
  const kind = request.kind.kind;
  const name = request.name || (object.metadata?.generateName ?? '');
  const findings: Finding[] = [];
  const visit = async (node: ReviewedObject, depth: number) => {
    const about = depth === 0 ? {} : { object: describeObject(node), user: node.request.userInfo?.username ?? '' };
    const deadline = { signal: AbortSignal.timeout(timeoutMs), expiresAt: performance.now() + timeoutMs };
    for (const finding of await findingsOf(node, steps, deadline)) findings.push({ ...finding, ...about });
    for (const created of node.creates) await visit(created, depth + 1);
  };
  await visit(reviewed, 0);
  return {
    source: reviewed.source,
    apiVersion: request.kind.group ? `${request.kind.group}/${request.kind.version}` : request.kind.version,
    kind,
    ...(request.namespace ? { namespace: request.namespace } : {}),
    name,
    owner: controller === undefined ? `${kind}/${name}` : `${controller.kind}/${controller.name}`,
    user: request.userInfo?.username ?? '',
    findings,
  };
}

/** Counts one audited object into the summary. */
export function count(summary: AuditSummary, reviewed: ReviewedObject, result: AuditResult): void {
  const created = (node: ReviewedObject): number => node.creates.reduce((n, c) => n + 1 + created(c), 0);
  summary.objects++;
  summary.created += created(reviewed);
  const has = (r: FindingResult) => result.findings.some((f) => f.result === r);
  if (has('deny')) summary.denied++;
  if (has('warn')) summary.warned++;
  if (has('mutate')) summary.mutated++;
}

function describeObject({ request }: ReviewedObject): string {
  const name = request.name || (request.object?.metadata?.generateName ?? '');
  return `${request.kind.kind} ${request.namespace ? `${request.namespace}/` : ''}${name}`;
}

/** One object's findings from its phases: the patch by plugin, warn- and audit-mode rejections, the denial. */
async function findingsOf({ request, handled }: ReviewedObject, steps: readonly MutatingStep[], deadline: Deadline): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const { response, outcome } of handled) {
    if (response.patch !== undefined) {
      // The plugins this request is exempt from changed nothing; alone, they would not know it.
      const exempt = new Set((outcome.exempted ?? []).map((e) => e.plugin));
      const acting = steps.filter((s) => !exempt.has(s.plugin));
      findings.push(...(await changesByPlugin(request, acting, deadline)));
    }
    const explanation = (plugin: string) => {
      const lines = outcome.explanations?.find((e) => e.plugin === plugin)?.explained.lines;
      return lines === undefined || lines.length === 0 ? {} : { explanation: [...lines] };
    };
    for (const { plugin, mode } of outcome.nonEnforced ?? []) {
      const message = outcome.annotations[annotationKey(plugin, `${mode}-rejection`)] ?? '';
      findings.push({ plugin, result: 'warn', mode, message, ...explanation(plugin) });
    }
    if (!response.allowed) {
      const plugin = outcome.rejectedBy ?? '';
      findings.push({
        plugin,
        result: 'deny',
        mode: 'enforce',
        code: response.status?.code ?? 403,
        message: response.status?.message ?? '',
        ...explanation(plugin),
      });
    }
  }
  return findings;
}

/** Each enabled mutating plugin as a chain of its own, in the chain's order: to tell whose change is whose. */
export function mutatingSteps(chain: AdmissionChain): MutatingStep[] {
  return chain.entries.filter((e) => e.plugin.admit !== undefined).map((e) => ({ plugin: e.plugin.name, chain: new AdmissionChain([e]) }));
}

export interface MutatingStep {
  plugin: string;
  chain: AdmissionChain;
}

/**
 * The mutating phase's change, plugin by plugin: the object run through each plugin alone, in the
 * chain's order, each seeing the one before's result, as the whole chain runs them. Asked only of an
 * object the whole chain changes; each plugin's patch is against what the one before left.
 */
async function changesByPlugin(request: AdmissionRequest, steps: readonly MutatingStep[], deadline: Deadline): Promise<Finding[]> {
  const findings: Finding[] = [];
  let current = request;
  for (const step of steps) {
    const { response, mutatedObject } = await handleAdmission(step.chain, 'admit', current, deadline);
    if (!response.allowed) break;
    if (response.patch !== undefined) findings.push({ plugin: step.plugin, result: 'mutate', patch: decodePatch(response.patch) });
    if (mutatedObject !== undefined) current = { ...current, object: mutatedObject };
  }
  return findings;
}

function decodePatch(patch: string): Operation[] {
  return JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as Operation[];
}
