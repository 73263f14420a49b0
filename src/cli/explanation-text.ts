// An explanation as the CLI prints it: the sentences, the commands that grant what is missing,
// and the objects as YAML (`explain` and `authorize` share it).
import { stringify } from 'yaml';
import type { KubeObject } from '../api/types.ts';
import type { Explained } from '../explain/index.ts';

export function explanationLines(explained: Explained, indent = ''): string[] {
  const lines = explained.lines.map((l) => `${indent}${l}`);
  if (explained.commands.length > 0) lines.push('', 'to grant it:', ...explained.commands.map((c) => `  ${c}`));
  return lines;
}

/** Multi-document YAML, each document ending in a newline; "" for none. */
export function objectsYaml(objects: readonly KubeObject[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}
