// PEM bundles as the Secret and the webhook caBundle carry them: several blocks, one after another.

/** The PEM blocks of a bundle, each with its BEGIN/END lines, in order. */
export function pemBlocks(bundle: string): string[] {
  return [...bundle.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)].map((m) => `${m[0]}\n`);
}

export function joinPem(blocks: readonly string[]): string {
  return blocks.map((b) => (b.endsWith('\n') ? b : `${b}\n`)).join('');
}
