// Removes the two webhook configurations, so the API server stops calling the webhook before
// anything it needs (Service, pods, certificates) goes away: the chart's pre-delete hook runs this.
// Tools that render the chart and apply it (`helm template | kubectl apply`, Kustomize, some GitOps
// controllers) may run the hook's Job as an ordinary one, at install: asked to act only for a Helm
// release, it then keeps configurations no Helm release installed.
import { ConfigurationKind, type WebhookConfigurationStore } from '../ports/webhook-configuration-store.ts';

/** The release whose ownership annotations a configuration must carry to be deleted. */
export interface HelmRelease {
  namespace: string;
  name: string;
}

/** Helm's release ownership metadata, set on every object `helm install` and `helm upgrade` create (never by `helm template`). */
export const helmReleaseNameAnnotation = 'meta.helm.sh/release-name';
export const helmReleaseNamespaceAnnotation = 'meta.helm.sh/release-namespace';

export const UnregisterOutcome = {
  Deleted: 'deleted',
  NotFound: 'not found',
  /** Present, but not installed by the Helm release named: left alone. */
  Kept: 'kept',
} as const;
export type UnregisterOutcome = (typeof UnregisterOutcome)[keyof typeof UnregisterOutcome];

export interface Unregistered {
  kind: ConfigurationKind;
  outcome: UnregisterOutcome;
}

/** Whether Helm release `release` installed an object with these annotations. */
export function ownedByHelmRelease(annotations: Record<string, string>, release: HelmRelease): boolean {
  return annotations[helmReleaseNameAnnotation] === release.name && annotations[helmReleaseNamespaceAnnotation] === release.namespace;
}

/** Parses NAMESPACE/NAME; throws with a reason otherwise. */
export function parseHelmRelease(value: string): HelmRelease {
  const match = /^([^/]+)\/([^/]+)$/.exec(value);
  if (match === null) throw new Error(`"${value}" is not NAMESPACE/NAME`);
  return { namespace: match[1]!, name: match[2]! };
}

/**
 * Deletes the validating configuration first (it is the one that fails closed), then the mutating
 * one. With `ownedBy`, a configuration that release did not install is kept.
 */
export async function unregisterWebhooks(
  store: WebhookConfigurationStore,
  name: string,
  ownedBy?: HelmRelease,
  signal?: AbortSignal,
): Promise<Unregistered[]> {
  const results: Unregistered[] = [];
  for (const kind of [ConfigurationKind.Validating, ConfigurationKind.Mutating]) {
    if (ownedBy !== undefined) {
      const live = await store.read(kind, name, signal);
      if (live === undefined) {
        results.push({ kind, outcome: UnregisterOutcome.NotFound });
        continue;
      }
      if (!ownedByHelmRelease(live.annotations, ownedBy)) {
        results.push({ kind, outcome: UnregisterOutcome.Kept });
        continue;
      }
    }
    results.push({ kind, outcome: (await store.delete(kind, name, signal)) ? UnregisterOutcome.Deleted : UnregisterOutcome.NotFound });
  }
  return results;
}
