// The streams a command talks through, injected so commands are testable in-process.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';

export interface CliIO {
  stdin: NodeJS.ReadableStream;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export const processIO: CliIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

/** A user-facing failure: printed as one line on stderr, exit code 1 (or the given one). */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Reads FILE, or stdin when FILE is "-" or absent. */
export async function readInput(file: string | undefined, io: CliIO): Promise<{ text: string; source: string }> {
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return { text: Buffer.concat(chunks).toString('utf8'), source: 'stdin' };
  }
  try {
    return { text: await readFile(file, 'utf8'), source: file };
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Parses one JSON or YAML document (JSON is YAML); the error names the source. */
export function parseSingleDocument(text: string, source: string): unknown {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.length === 0 || text.trim() === '') throw new CliError(`${source}: no document found`);
  const nonEmpty = docs.filter((d) => d.contents !== null);
  if (nonEmpty.length !== 1) throw new CliError(`${source}: expected one document, found ${nonEmpty.length}`);
  const doc = nonEmpty[0]!;
  if (doc.errors.length > 0) throw new CliError(`${source}: not valid JSON or YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  return doc.toJS();
}
