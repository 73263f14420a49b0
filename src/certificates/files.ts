// The serving pair on disk, where the HTTPS server reads (and re-reads) it. Each file is written
// aside and renamed, key first, so the server's watcher never sees half a file; a pair that does not
// match yet is simply not loaded until both are in place.
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';

export interface ServingFiles {
  certFile: string;
  keyFile: string;
}

/** Writes the pair when it differs from what is on disk; true when it wrote. */
export async function syncServingFiles(files: ServingFiles, pair: { cert: string; key: string }): Promise<boolean> {
  const [cert, key] = await Promise.all([
    readFile(files.certFile, 'utf8').catch(() => ''),
    readFile(files.keyFile, 'utf8').catch(() => ''),
  ]);
  if (cert === pair.cert && key === pair.key) return false;
  await writeAtomically(files.keyFile, pair.key, 0o600);
  await writeAtomically(files.certFile, pair.cert, 0o644);
  return true;
}

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, content, { mode });
  await chmod(partial, mode);
  await rename(partial, path);
}
