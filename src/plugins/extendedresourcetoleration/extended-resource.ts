// pkg/apis/core/helper IsExtendedResourceName: a resource name outside the kubernetes.io domain,
// not a quota "requests." name, that is still a qualified name once quota prefixes it.
import { isQualifiedName } from '../../api/label-validation.ts';

const defaultNamespacePrefix = 'kubernetes.io/';
const requestsPrefix = 'requests.';

export function isExtendedResourceName(name: string): boolean {
  // Unprefixed names (cpu, memory) and anything under *kubernetes.io/ are native.
  const native = !name.includes('/') || name.includes(defaultNamespacePrefix);
  if (native || name.startsWith(requestsPrefix)) return false;
  return isQualifiedName(`${requestsPrefix}${name}`).length === 0;
}
