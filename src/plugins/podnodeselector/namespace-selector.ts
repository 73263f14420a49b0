// The node selector a namespace imposes (upstream getNamespaceNodeSelectorMap): its
// scheduler.alpha.kubernetes.io/node-selector annotation when it has one (even ""), else the
// cluster default. The namespace comes from the informer cache, or one live GET when the cache does
// not have it yet; upstream reports every failure of that GET as "namespace <name> does not exist".
import { abortedError } from '../../admission/errors.ts';
import { convertSelectorToLabelsMap, type LabelSet, SelectorError } from '../../api/labels.ts';
import { internalError, nonStatusError } from '../../api/status-error.ts';
import type { Namespace, ResourceLookup } from '../../ports/lookups.ts';
import type { PodNodeSelectorConfiguration } from './configuration.ts';

const nodeSelectorAnnotation = 'scheduler.alpha.kubernetes.io/node-selector';

export async function namespaceNodeSelector(
  namespaces: ResourceLookup<Namespace>,
  name: string,
  configuration: PodNodeSelectorConfiguration,
  signal: AbortSignal,
): Promise<LabelSet> {
  return selectorOf(await readNamespace(namespaces, name, signal), configuration);
}

async function readNamespace(namespaces: ResourceLookup<Namespace>, name: string, signal: AbortSignal): Promise<Namespace> {
  const cached = namespaces.cached('', name);
  if (cached !== undefined) return cached;
  const doesNotExist = () => internalError(`namespace ${name} does not exist`);
  let live: Namespace | undefined;
  try {
    live = await namespaces.live('', name, signal);
  } catch {
    if (signal.aborted) throw abortedError(signal.reason, ` while reading namespace ${name}`);
    throw doesNotExist();
  }
  if (live === undefined) throw doesNotExist();
  return live;
}

function selectorOf(namespace: Namespace, configuration: PodNodeSelectorConfiguration): LabelSet {
  const annotation = namespace.metadata?.annotations?.[nodeSelectorAnnotation];
  if (typeof annotation !== 'string') return configuration.clusterDefaultNodeSelector;
  try {
    return convertSelectorToLabelsMap(annotation);
  } catch (error) {
    // Upstream returns the parse error as it is: kube-apiserver reports it as a 500.
    if (error instanceof SelectorError) throw nonStatusError(error.message, error);
    throw error;
  }
}
