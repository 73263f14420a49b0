// Removes the two webhook configurations, so the API server stops calling the webhook before
// anything it needs (Service, pods, certificates) goes away: the chart's pre-delete hook runs this.
import { ConfigurationKind, type WebhookConfigurationStore } from '../ports/webhook-configuration-store.ts';

export interface Unregistered {
  kind: ConfigurationKind;
  deleted: boolean;
}

/** Deletes the validating configuration first (it is the one that fails closed), then the mutating one. */
export async function unregisterWebhooks(store: WebhookConfigurationStore, name: string, signal?: AbortSignal): Promise<Unregistered[]> {
  const results: Unregistered[] = [];
  for (const kind of [ConfigurationKind.Validating, ConfigurationKind.Mutating]) results.push({ kind, deleted: await store.delete(kind, name, signal) });
  return results;
}
