// `--apply-to`: a cluster-state file with a remedy's objects added. The file's own text stays as it
// was, comments included; the objects follow as YAML documents, after a comment saying why.
import { stringify } from 'yaml';
import type { KubeObject } from '../api/types.ts';
import { withoutControlCharacters } from './limits.ts';

export function withObjectsAppended(text: string, objects: readonly KubeObject[], comment?: string): string {
  if (objects.length === 0) return text;
  const body = objects.map((object) => stringify(object)).join('---\n');
  const head = comment === undefined ? '' : `# ${withoutControlCharacters(comment)}\n`;
  const kept = text.replace(/\s+$/, '');
  return `${kept === '' ? '' : `${kept}\n---\n`}${head}${body}`;
}

/** Kind, namespace and name: what makes two objects the same object. */
export function objectKey(object: KubeObject): string {
  return JSON.stringify([object.kind ?? '', object.metadata?.namespace ?? '', object.metadata?.name ?? '']);
}
