// The documents a review reads: files, directories (recursively, *.yaml, *.yml and *.json, in name
// order) and stdin, each holding any number of YAML or JSON documents, with List objects (kind
// List or any *List) opened into their items. A document that does not parse is kept as an error
// that names its source, so the others are still reviewed.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Composer, type Document, isScalar, LineCounter, Parser, type YAMLError } from 'yaml';
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
    let found = 0;
    for (const document of documentsOf(text, source)) {
      found++;
      yield document;
    }
    // An empty file met in a directory is no mistake (a placeholder, a file of comments); one named
    // on the command line is.
    if (found === 0 && file === path) yield { source, file: source, document: 1, error: 'no document found' };
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
  return [...documentsOf(text, file)];
}

/**
 * splitDocuments one document at a time: each is parsed when asked for, so a file of thousands of
 * documents never holds all their syntax trees at once. One document is read ahead, to know whether
 * the file has more than one (their sources then name their positions).
 */
export function* documentsOf(text: string, file: string): Generator<InputDocument> {
  if (text.trim() === '') return;
  const lines = new LineCounter();
  const parsed = new Composer().compose(new Parser(lines.addNewLine).parse(text));
  // Not for...of: leaving that loop early would close the generator.
  const next = (): Document.Parsed | undefined => {
    for (let r = parsed.next(); !r.done; r = parsed.next()) if (!isEmpty(r.value) || r.value.errors.length > 0) return r.value;
    return undefined;
  };
  let current = next();
  let following = current === undefined ? undefined : next();
  const many = following !== undefined;
  for (let document = 1; current !== undefined; document++) {
    yield* fromDocument(current, { file, document, many }, lines);
    current = following;
    following = current === undefined ? undefined : next();
  }
}

/**
 * A document with nothing in it (between two `---`, after a last one, only comments): skipped, as
 * kubectl skips it. The parser gives it an empty null scalar; a written `~` or `null` is not empty.
 */
function isEmpty(doc: Document.Parsed): boolean {
  const { contents } = doc;
  return contents === null || (isScalar(contents) && contents.value === null && contents.source === '');
}

function fromDocument(
  doc: Document.Parsed,
  { file, document, many }: { file: string; document: number; many: boolean },
  lines: LineCounter,
): InputDocument[] {
  const source = many ? `${file}: document ${document}` : file;
  const [error] = doc.errors;
  if (error !== undefined) return [{ source, file, document, error: `not valid JSON or YAML: ${located(error, lines)}` }];
  const value: unknown = doc.toJS();
  if (!isList(value)) return [{ source, file, document, value }];
  return value.items.map((item, j) => ({
    source: `${many ? source : file}${many ? '' : ':'} item ${j + 1}`,
    file,
    document,
    item: j + 1,
    value: item,
  }));
}

/** The parser's message with where it is, as the yaml library's own pretty errors begin. */
function located(error: YAMLError, lines: LineCounter): string {
  const message = error.message.split('\n')[0]!;
  if (error.pos[0] === -1) return message;
  const { line, col } = lines.linePos(error.pos[0]);
  return `${message} at line ${line}, column ${col}`;
}

function isList(value: unknown): value is { items: unknown[] } {
  return isPlainObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items);
}
