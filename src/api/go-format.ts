// Go's formatting of strings and errors, as Kubernetes messages print them: every message built here
// must read exactly like kube-apiserver's.

/** Printable ASCII with neither a quote nor a backslash: quoted as it is, by JSON and Go alike. */
const plainAscii = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Go's %q for the strings we quote (object names): a double-quoted string with escapes. */
export function goQuote(value: string): string {
  // Nearly every name and value quoted is plain ASCII: quoted without the JSON encoder's setup.
  return plainAscii.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** Go's "%v" of an error value: "<nil>" when there is none. */
export function goErrorString(error: string | undefined): string {
  return error === undefined ? '<nil>' : error;
}
