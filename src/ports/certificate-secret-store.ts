// The one Secret the self-managed certificates live in, as the certificate controller sees it: read
// it with its resourceVersion, replace it only if nobody wrote it since (optimistic concurrency, so
// one replica's write wins and the others adopt it).

/** The Secret's keys. ca.crt is the bundle injected as the webhooks' caBundle (newest CA first). */
export const SecretKeys = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  cert: 'tls.crt',
  key: 'tls.key',
} as const;

export type SecretContents = Partial<Record<(typeof SecretKeys)[keyof typeof SecretKeys], string>>;

export interface StoredSecret {
  contents: SecretContents;
  resourceVersion: string;
}

export interface CertificateSecretStore {
  /** Where the Secret lives, for logs and errors: namespace/name. */
  readonly description: string;
  read(signal?: AbortSignal): Promise<StoredSecret>;
  /** Writes contents over the version read; 'conflict' when someone wrote it in between. */
  replace(contents: SecretContents, resourceVersion: string, signal?: AbortSignal): Promise<StoredSecret | 'conflict'>;
}
