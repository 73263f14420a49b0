// The Warning response header kube-apiserver sends for admission warnings (RFC 7234 form, code 299,
// agent "-"), which kubectl prints as "Warning: <text>". Duplicates are sent once, as upstream's
// warning recorder does.
export function warningHeader(warnings: readonly string[]): string {
  return [...new Set(warnings)].map((text) => `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(', ');
}
