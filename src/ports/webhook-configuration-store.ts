// The two webhook configurations the webhook registers itself in, as the registrar sees them: read
// by name (absent is an answer), their webhooks written over the version read (a conflicting write
// by another replica is refused, and the next pass starts from what it wrote), and deleted.

export const ConfigurationKind = {
  Mutating: 'MutatingWebhookConfiguration',
  Validating: 'ValidatingWebhookConfiguration',
} as const;
export type ConfigurationKind = (typeof ConfigurationKind)[keyof typeof ConfigurationKind];

/** One webhook of a configuration, as JSON (the chart's rendering, or what the API server holds). */
export type WebhookJson = Record<string, unknown> & { name: string };

export interface LiveConfiguration {
  resourceVersion: string;
  annotations: Record<string, string>;
  webhooks: WebhookJson[];
}

export interface WebhookConfigurationStore {
  read(kind: ConfigurationKind, name: string, signal?: AbortSignal): Promise<LiveConfiguration | undefined>;
  /** Replaces the webhooks (and sets the annotations given) over resourceVersion; 'conflict' when it changed since. */
  writeWebhooks(
    kind: ConfigurationKind,
    name: string,
    change: { webhooks: WebhookJson[]; annotations: Record<string, string>; resourceVersion: string },
    signal?: AbortSignal,
  ): Promise<LiveConfiguration | 'conflict'>;
  /** Deletes the configuration; false when there was none. */
  delete(kind: ConfigurationKind, name: string, signal?: AbortSignal): Promise<boolean>;
}
