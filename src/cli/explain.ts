// `admission-chain explain`: why a request is denied and what would admit it, offline. Takes what
// `review` takes (AdmissionReviews, `review`'s own output, manifests with --user; workloads with
// the pods their controllers would create),
// runs the chain against the cluster-state file, and prints the decision, the explanation and the
// remedy's objects as YAML. `--apply-to FILE` writes the cluster state with those objects added, so
// the same review can be run again against it.
import { readFile, writeFile } from 'node:fs/promises';
import { type Command, CommanderError, Option } from 'commander';
import type { ExplainedRejection } from '../admission/chain.ts';
import type { KubeObject } from '../api/types.ts';
import { objectKey, withObjectsAppended } from '../explain/apply.ts';
import { type ClusterState, parseClusterState } from '../wiring/index.ts';
import { explanationLines, objectsYaml } from './explanation-text.ts';
import { CliError, type CliIO } from './io.ts';
import { flatten, prepareReview, type ReviewedObject, type ReviewOptions, reviewAll, toResult, withReviewOptions } from './review.ts';
import { exitCode, summarize } from './review-results.ts';

interface ExplainOptions extends ReviewOptions {
  applyTo?: string;
  output: 'text' | 'yaml';
}

export function registerExplainCommand(program: Command, io: CliIO): void {
  withReviewOptions(
    program
      .command('explain')
      .description(
        'run the chain offline like review, and say why a request is denied and what would admit it (the Role and binding to add, as YAML)',
      ),
  )
    .option('--apply-to <file>', 'write the cluster state with the suggested objects added to FILE (it may be the --cluster-state file)')
    .addOption(
      new Option('-o, --output <format>', 'text: the decision, the explanation and the YAML; yaml: only the objects to add')
        .choices(['text', 'yaml'])
        .default('text'),
    )
    .action(async (files: string[], options: ExplainOptions) => {
      const code = await explain(files, options, io);
      if (code !== 0) throw new CommanderError(code, 'admission-chain.explain.fail-on', `--fail-on ${options.failOn}`);
    });
}

async function explain(files: string[], options: ExplainOptions, io: CliIO): Promise<number> {
  const prepared = await prepareReview(files, options, io);
  const reviewed = await reviewAll(prepared);
  const [first] = reviewed;
  if (reviewed.length === 1 && first !== undefined && 'error' in first) throw new CliError(`${first.source}: ${first.error}`);
  for (const r of reviewed) if ('error' in r) io.stderr.write(`admission-chain: ${r.source}: ${r.error}\n`);
  const reviews = reviewed.flatMap((r) => ('error' in r ? [] : flatten(r)));
  const explanations = reviews.flatMap((r) => r.handled.flatMap((h) => h.outcome.explanations ?? []));
  const objects = distinctObjects(explanations.flatMap((e) => e.explained.objects));

  if (options.output === 'yaml') {
    io.stdout.write(objectsYaml(objects));
  } else {
    const sections = reviews.flatMap((r) => explainOne(r, reviews.length > 1));
    if (objects.length > 0) sections.push(`---\n${objectsYaml(objects).trimEnd()}`);
    io.stdout.write(`${sections.join('\n\n')}\n`);
  }

  if (options.applyTo !== undefined) await applyTo(options.clusterState!, options.applyTo, objects, io);
  return exitCode(summarize(reviewed.map(toResult)), options.failOn);
}

/** One object's decision and explanations; headed by the object when there are several. */
function explainOne({ request, response, handled, source, controller }: ReviewedObject, headed: boolean): string[] {
  const explanations = handled.flatMap((h) => h.outcome.explanations ?? []);
  const rejectedBy = handled.find((h) => h.rejectedBy !== undefined)?.rejectedBy;
  const decision = response.allowed
    ? 'allowed'
    : `denied${rejectedBy === undefined ? '' : ` by ${rejectedBy}`} (${response.status?.code ?? 403}): ${response.status?.message ?? ''}`;
  const name = request.name || (request.object?.metadata?.generateName ?? '');
  const heading = `${request.kind.kind} ${request.namespace ? `${request.namespace}/` : ''}${name} (${source}${controller ? `, created by ${controller}` : ''}): `;
  const sections = [`${headed ? heading : ''}${decision}`];
  for (const explanation of explanations) sections.push(describe(explanation));
  if (!response.allowed && !explanations.some((e) => e.mode === 'enforce')) sections.push('no remedy is known for this denial');
  return sections;
}

function describe({ plugin, mode, explained }: ExplainedRejection): string {
  const heading = mode === 'enforce' ? `why (${plugin}):` : `${plugin} (${mode} mode) would have denied it:`;
  return [heading, ...explanationLines(explained, '  ')].join('\n');
}

/** Each object once (the same remedy can come from the mutating and the validating phase). */
function distinctObjects(objects: readonly KubeObject[]): KubeObject[] {
  const seen = new Set<string>();
  return objects.filter((object) => {
    const key = objectKey(object);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The cluster state with the objects it does not have yet; objects it has are left as they are. */
async function applyTo(statePath: string, target: string, objects: readonly KubeObject[], io: CliIO): Promise<void> {
  let text: string;
  try {
    text = await readFile(statePath, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${statePath}: ${(error as Error).message}`);
  }
  const present = new Set(stateObjects(parseClusterState(text, statePath)).map(objectKey));
  const added = objects.filter((o) => !present.has(objectKey(o)));
  const names = (list: readonly KubeObject[]) =>
    list.map((o) => `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`).join(', ');
  const already = objects.filter((o) => present.has(objectKey(o)));
  try {
    await writeFile(target, withObjectsAppended(text, added, 'added by admission-chain explain'));
  } catch (error) {
    throw new CliError(`cannot write ${target}: ${(error as Error).message}`);
  }
  if (already.length > 0) io.stderr.write(`admission-chain: ${statePath} already has ${names(already)}; left as it is\n`);
  io.stderr.write(
    added.length === 0 ? `admission-chain: wrote ${target}: nothing to add\n` : `admission-chain: wrote ${target}: added ${names(added)}\n`,
  );
}

function stateObjects(state: ClusterState): KubeObject[] {
  return [
    ...state.roles,
    ...state.clusterRoles,
    ...state.roleBindings,
    ...state.clusterRoleBindings,
    ...state.serviceAccounts,
    ...state.namespaces,
  ];
}
