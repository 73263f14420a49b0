// The documents a review reads: files, directories (recursively, *.yaml, *.yml and *.json, in name
// order) and stdin, each holding any number of YAML or JSON documents, with List objects (kind
// List or any *List) opened into their items. A document that does not parse is kept as an error
// that names its source, so the others are still reviewed.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../util/plain-object.ts';
import { CliError, type CliIO, readInput } from './io.ts';

export interface InputDocument {
  /** Where it came from, as messages name it: "app.yaml", "app.yaml: document 2", "stdin: document 1 item 3". */
  source: string;
  file: string;
  /** 1-based position in its file; item is the 1-based position in a List. */
  document: number;
  item?: number;
  value?: unknown;
  error?: string;
}

const manifestExtensions = ['.yaml', '.yml', '.json'];

/** Every document of every path in order; no paths, or "-", is stdin. Unreadable paths stop the run. */
export async function readDocuments(paths: readonly string[], io: CliIO): Promise<InputDocument[]> {
  const documents: InputDocument[] = [];
  for await (const document of streamDocuments(paths, io)) documents.push(document);
  return documents;
}

/**
 * readDocuments one file at a time: only the file being read is held, whatever the tree's size.
 * Every path is listed first (an unreadable one stops the run before any is read); `onFile` is told
 * each file's position before it is read.
 */
export async function* streamDocuments(
  paths: readonly string[],
  io: CliIO,
  onFile?: (index: number, files: number) => void,
): AsyncGenerator<InputDocument> {
  const files: Array<{ file: string; path: string }> = [];
  for (const path of paths.length === 0 ? ['-'] : paths) for (const file of await filesOf(path)) files.push({ file, path });
  for (const [index, { file, path }] of files.entries()) {
    onFile?.(index, files.length);
    const { text, source } = await readInput(file, io);
    const found = splitDocuments(text, source);
    // An empty file met in a directory is no mistake (a placeholder, a file of comments); one named
    // on the command line is.
    if (found.length > 0) yield* found;
    else if (file === path) yield { source, file: source, document: 1, error: 'no document found' };
  }
}

async function filesOf(path: string): Promise<string[]> {
  if (path === '-') return [path];
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (!isDirectory) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await filesOf(child)));
    else if (entry.isFile() && manifestExtensions.some((ext) => entry.name.endsWith(ext))) files.push(child);
  }
  return files;
}

/** The documents of one file's text, none for an empty one. */
export function splitDocuments(text: string, file: string): InputDocument[] {
  const parsed = text.trim() === '' ? [] : parseAllDocuments(text);
  const docs = Array.isArray(parsed) ? parsed.filter((d) => d.contents !== null || d.errors.length > 0) : [];
  const many = docs.length > 1;
  return docs.flatMap((doc, i): InputDocument[] => {
    const document = i + 1;
    const source = many ? `${file}: document ${document}` : file;
    if (doc.errors.length > 0) {
      return [{ source, file, document, error: `not valid JSON or YAML: ${doc.errors[0]!.message.split('\n')[0]}` }];
    }
    const value: unknown = doc.toJS();
    if (!isList(value)) return [{ source, file, document, value }];
    return value.items.map((item, j) => ({
      source: `${many ? source : file}${many ? '' : ':'} item ${j + 1}`,
      file,
      document,
      item: j + 1,
      value: item,
    }));
  });
}

function isList(value: unknown): value is { items: unknown[] } {
  return isPlainObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items);
}
