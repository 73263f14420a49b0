// A memory cgroup for the benchmark's servers, limited as the chart limits the pod. Node sizes its
// heap from the cgroup's limit (it reads it at start-up), and V8 collects sooner in a small heap,
// so a server measured without one grows a heap it would never reach in the pod. Made only where
// this machine lets us (root, a memory controller); otherwise the run says it was not limited.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface MemoryCgroup {
  /** The cgroup's directory; a process joins by writing its pid to cgroup.procs. */
  readonly path: string;
  readonly limitMiB: number;
  /** Removes the cgroup (every process in it must have exited). */
  remove(): void;
}

/** The memory limit the chart gives the webhook's container (values.yaml resources.limits.memory), in MiB. */
export function chartMemoryLimitMiB(valuesYaml: string): number {
  const values = parse(valuesYaml) as { resources?: { limits?: { memory?: unknown } } };
  const limit = values.resources?.limits?.memory;
  const match = typeof limit === 'string' ? /^(\d+)(Mi|Gi)$/.exec(limit) : null;
  if (match === null) throw new Error(`bench: cannot read resources.limits.memory from the chart's values (got ${JSON.stringify(limit)})`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/** A new memory cgroup limited to limitMiB, or why none could be made. */
export function createMemoryCgroup(limitMiB: number, name: string): MemoryCgroup | { unavailable: string } {
  const bytes = String(limitMiB * 2 ** 20);
  const v1 = '/sys/fs/cgroup/memory';
  const v2 = '/sys/fs/cgroup';
  try {
    if (existsSync(join(v1, 'memory.limit_in_bytes'))) {
      // Under this process's own memory cgroup, so whatever accounts for the benchmark accounts for
      // its servers too.
      const own = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1] ?? '/';
      return make(join(v1, own, name), 'memory.limit_in_bytes', bytes, limitMiB);
    }
    if (readFileSync(join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory')) {
      // Children of the root cgroup get the memory controller only once the root hands it down.
      if (!readFileSync(join(v2, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('memory')) writeFileSync(join(v2, 'cgroup.subtree_control'), '+memory');
      return make(join(v2, name), 'memory.max', bytes, limitMiB);
    }
    return { unavailable: 'no memory cgroup controller' };
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
}

function make(path: string, limitFile: string, bytes: string, limitMiB: number): MemoryCgroup {
  mkdirSync(path);
  try {
    writeFileSync(join(path, limitFile), bytes);
  } catch (error) {
    rmdirSync(path);
    throw error;
  }
  return {
    path,
    limitMiB,
    remove: () => {
      try {
        rmdirSync(path);
      } catch {
        // A process still in it (or already gone): the kernel keeps it until the last one exits.
      }
    },
  };
}
