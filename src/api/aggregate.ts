// apimachinery's utilerrors.NewAggregate(errs).Error(): how Kubernetes joins several error
// messages into one, so a joined message here reads exactly like kube-apiserver's.

/** One message as itself; several de-duplicated and bracketed: "[a, b]". "" for none. */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 0) return '';
  if (messages.length === 1) return messages[0]!;
  const seen = new Set<string>();
  for (const message of messages) seen.add(message);
  const unique = [...seen];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
