// The documented divergences: where a real cluster answers differently with our webhook than with
// the in-tree plugin, for a reason that lies in how kube-apiserver calls webhooks (or in what the
// chart deliberately leaves out) rather than in a plugin of ours. Each entry says why, names the
// upstream code the difference comes from, and recognises its disagreements narrowly; docs/fidelity.md
// words each one for users. Anything the oracle finds that no entry recognises fails the run.
import type { Outcome } from './compare.ts';
import type { OracleCase } from './generate.ts';
import { type OraclePlugin, oraclePlugins } from './servers.ts';
import { lateMutationLabel, namespacesNotSentToWebhook } from './world.ts';

export interface Divergence {
  id: string;
  plugins: readonly OraclePlugin[];
  /** Why the answers differ. */
  reason: string;
  /** The upstream code the difference comes from. */
  upstream: string;
  matches(oracleCase: OracleCase, inTree: Outcome, webhook: Outcome): boolean;
}

interface PodLike {
  metadata?: { labels?: Record<string, string> };
  spec?: { tolerations?: unknown[]; overhead?: Record<string, string> };
}

/** The object with its tolerations sorted, so two lists holding the same tolerations compare equal. */
function withSortedTolerations(object: unknown): string {
  const copy = structuredClone(object) as PodLike;
  if (copy.spec?.tolerations !== undefined) copy.spec.tolerations = copy.spec.tolerations.map((t) => JSON.stringify(t)).sort();
  return JSON.stringify(copy);
}

/** The in-tree RuntimeClass's two refusals of a pod's own overhead. */
const overheadRefusal =
  /pod rejected: (Pod Overhead set without corresponding RuntimeClass defined Overhead|Pod's Overhead doesn't match RuntimeClass's defined Overhead)$/;

export const divergences: readonly Divergence[] = [
  {
    id: 'namespaces-not-sent-to-the-webhook',
    plugins: oraclePlugins,
    reason:
      'The chart never sends the webhook requests from its own namespace, kube-system, kube-node-lease or a namespace ' +
      'labelled with the opt-out label (webhooks.excludedNamespaces, webhooks.optOutLabel), so that the webhook can never ' +
      'block its own recovery. The in-tree plugins see every namespace.',
    upstream:
      'k8s.io/apiserver pkg/admission/plugin/webhook/predicates/namespace/matcher.go (a webhook is called only for ' +
      'namespaces its namespaceSelector matches); in-tree plugins have no selector (k8s.io/apiserver pkg/admission/chain.go)',
    matches: (oracleCase) => namespacesNotSentToWebhook.includes(oracleCase.request.namespace),
  },
  {
    id: 'tolerations-order-after-a-later-mutation',
    plugins: ['ExtendedResourceToleration', 'PodTolerationRestriction'],
    reason:
      'When a MutatingAdmissionPolicy or a webhook changes a pod after the in-tree plugins ran, kube-apiserver runs every ' +
      'in-tree mutating plugin a second time; in-tree, ExtendedResourceToleration then appends the tolerations for ' +
      'resources it sees only on that second pass after the ones from the first. Our webhook runs after every policy and ' +
      'sees the whole pod at once, so it adds them in one sorted run. The pod tolerates the same taints either way.',
    upstream:
      'k8s.io/apiserver pkg/admission/reinvocation.go (the second pass re-runs all in-tree plugins), ' +
      'pkg/admission/plugin/policy/mutating/dispatcher.go (a policy that changes the object asks for it), ' +
      'k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go AllOrderedPlugins (MutatingAdmissionPolicy after the in-tree ' +
      'plugins, before MutatingAdmissionWebhook), plugin/pkg/admission/extendedresourcetoleration/admission.go',
    matches: (oracleCase, inTree, webhook) =>
      (oracleCase.request.object as PodLike | undefined)?.metadata?.labels?.[lateMutationLabel] === 'true' &&
      inTree.admitted &&
      webhook.admitted &&
      withSortedTolerations(inTree.object) === withSortedTolerations(webhook.object),
  },
  {
    id: 'another-plugins-denial-after-a-later-mutation',
    plugins: oraclePlugins,
    reason:
      "When a MutatingAdmissionPolicy or a webhook changes a pod after the in-tree plugins ran, kube-apiserver's second " +
      'pass re-runs every in-tree mutating plugin over what the first pass added: in-tree, PodTolerationRestriction then ' +
      'checks the tolerations ExtendedResourceToleration added and can deny during mutation. Our webhook is not re-run (no ' +
      'later mutation follows it), so the same pod is denied in validation by the first of our validating plugins that ' +
      'refuses it. Both deny the pod; the status says why differently.',
    upstream:
      'k8s.io/apiserver pkg/admission/reinvocation.go (the second pass re-runs all in-tree plugins), ' +
      'pkg/admission/plugin/webhook/mutating/dispatcher.go (a webhook is reinvoked only when a later one changed the object), ' +
      'plugin/pkg/admission/podtolerationrestriction/admission.go (Admit checks the whitelist)',
    matches: (oracleCase, inTree, webhook) =>
      (oracleCase.request.object as PodLike | undefined)?.metadata?.labels?.[lateMutationLabel] === 'true' &&
      !inTree.admitted &&
      !webhook.admitted,
  },
  {
    id: 'empty-overhead-not-sent-to-the-webhook',
    plugins: ['RuntimeClass'],
    reason:
      "A pod created with an empty overhead (`overhead: {}`) keeps it in kube-apiserver's own object, so the in-tree " +
      'RuntimeClass refuses it: an overhead its RuntimeClass does not define, or one that differs from what the class ' +
      'defines. kube-apiserver writes the pod into the AdmissionReview as JSON, where an empty overhead is left out, so ' +
      'our webhook sees a pod without one: it admits the first and sets the class overhead on the second. The stored pod ' +
      'has no empty overhead either way.',
    upstream:
      'k8s.io/api core/v1 types.go (PodSpec.Overhead is `json:"overhead,omitempty"`), k8s.io/apiserver ' +
      'pkg/admission/plugin/webhook/request/admissionreview.go (the object sent as the versioned object, encoded as ' +
      'JSON), k8s.io/kubernetes plugin/pkg/admission/runtimeclass/admission.go (setOverhead and validateOverhead test the ' +
      'overhead for nil, not for empty)',
    matches: (oracleCase, inTree, webhook) => {
      const overhead = (oracleCase.request.object as PodLike | undefined)?.spec?.overhead;
      return (
        overhead !== undefined &&
        Object.keys(overhead).length === 0 &&
        !inTree.admitted &&
        overheadRefusal.test(inTree.message) &&
        webhook.admitted
      );
    },
  },
];
