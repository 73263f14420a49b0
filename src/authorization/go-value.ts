// Go's "%#v" for the few struct values SubjectAccessReview validation puts in its messages
// (field.Invalid(path, structValue, ...)), so our 422 messages match kube-apiserver's text.
import { goQuote } from '../api/go-format.ts';
import type { NonResourceAttributes } from '../ports/authorizer.ts';

/** %#v of an authorization/v1 NonResourceAttributes struct. */
export function goNonResourceAttributes(attributes: Partial<NonResourceAttributes>): string {
  return `v1.NonResourceAttributes{Path:${goQuote(attributes.path ?? '')}, Verb:${goQuote(attributes.verb ?? '')}}`;
}

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * time.Time.GoString() of a metav1.Time. Decoded timestamps are converted to the server's local
 * zone (metav1.Time.UnmarshalJSON), which Go prints as time.Local; we assume a UTC server clock.
 */
function goTime(value: unknown): string {
  if (typeof value !== 'string' || value === '') return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return goQuote(value);
  return `time.Date(${date.getUTCFullYear()}, time.${months[date.getUTCMonth()]}, ${date.getUTCDate()}, ${date.getUTCHours()}, ${date.getUTCMinutes()}, ${date.getUTCSeconds()}, 0, time.Local)`;
}

function goStringMap(value: unknown): string {
  if (value === undefined || value === null) return 'map[string]string(nil)';
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(String(v))}`).join(', ')}}`;
}

function goStringSlice(value: unknown): string {
  if (value === undefined || value === null) return '[]string(nil)';
  return `[]string{${(value as unknown[]).map((v) => goQuote(String(v))).join(', ')}}`;
}

/**
 * Slices of structs that hold pointers: Go prints the pointers' addresses, which no other process
 * can reproduce, so a non-empty one is rendered with its elements elided.
 */
function goStructSlice(type: string, value: unknown): string {
  if (value === undefined || value === null) return `[]${type}(nil)`;
  return (value as unknown[]).length === 0 ? `[]${type}{}` : `[]${type}{...}`;
}

function goPointer(type: string, value: unknown, render: (v: unknown) => string): string {
  return value === undefined || value === null ? `(*${type})(nil)` : render(value);
}

/** %#v of a metav1.ObjectMeta decoded from `metadata`. */
export function goObjectMeta(metadata: Record<string, unknown>): string {
  const str = (key: string) => goQuote(typeof metadata[key] === 'string' ? (metadata[key] as string) : '');
  const fields = [
    `Name:${str('name')}`,
    `GenerateName:${str('generateName')}`,
    `Namespace:${str('namespace')}`,
    `SelfLink:${str('selfLink')}`,
    `UID:${str('uid')}`,
    `ResourceVersion:${str('resourceVersion')}`,
    `Generation:${typeof metadata.generation === 'number' ? metadata.generation : 0}`,
    `CreationTimestamp:${goTime(metadata.creationTimestamp)}`,
    `DeletionTimestamp:${metadata.deletionTimestamp == null ? '<nil>' : goTime(metadata.deletionTimestamp)}`,
    `DeletionGracePeriodSeconds:${goPointer('int64', metadata.deletionGracePeriodSeconds, () => '(*int64)(...)')}`,
    `Labels:${goStringMap(metadata.labels)}`,
    `Annotations:${goStringMap(metadata.annotations)}`,
    `OwnerReferences:${goStructSlice('v1.OwnerReference', metadata.ownerReferences)}`,
    `Finalizers:${goStringSlice(metadata.finalizers)}`,
    `ManagedFields:${goStructSlice('v1.ManagedFieldsEntry', metadata.managedFields)}`,
  ];
  return `v1.ObjectMeta{${fields.join(', ')}}`;
}
