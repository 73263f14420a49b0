// A memory cgroup for the benchmark's servers, limited as the chart limits the pod. Node sizes its
// heap from the cgroup's limit (it reads it at start-up), and V8 collects sooner in a small heap,
// so a server measured without one grows a heap it would never reach in the pod. Made only where
// this machine lets us (root, a memory controller for our own cgroup's children); otherwise the
// run says it was not limited. Nothing outside the bench's own cgroup is changed.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { quantityNanos } from '../src/plugins/runtimeclass/quantity.ts';

export interface MemoryCgroup {
  /** The cgroup's directory; a process joins by writing its pid to cgroup.procs. */
  readonly path: string;
  /** Removes the cgroup (every process in it must have exited). */
  remove(): void;
}

/** The memory limit the chart gives the webhook's container (values.yaml resources.limits.memory), in MiB. */
export function chartMemoryLimitMiB(valuesYaml: string): number {
  const values = parse(valuesYaml) as { resources?: { limits?: { memory?: unknown } } };
  const limit = values.resources?.limits?.memory;
  const nanos = quantityNanos(limit);
  if (nanos === undefined || nanos <= 0n)
    throw new Error(`bench: cannot read resources.limits.memory from the chart's values (got ${JSON.stringify(limit)})`);
  return Number(nanos / 10n ** 9n) / 2 ** 20;
}

/**
 * A new memory cgroup limited to limitMiB under this process's own (so whatever accounts for the
 * benchmark accounts for its servers too), or why none could be made.
 */
export function createMemoryCgroup(limitMiB: number, name: string): MemoryCgroup | { unavailable: string } {
  const bytes = String(Math.round(limitMiB * 2 ** 20));
  const ownCgroups = readFileSync('/proc/self/cgroup', 'utf8');
  try {
    const v1 = '/sys/fs/cgroup/memory';
    if (existsSync(join(v1, 'memory.limit_in_bytes'))) {
      const own = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(ownCgroups)?.[1] ?? '/';
      return make(join(v1, own, name), 'memory.limit_in_bytes', bytes);
    }
    const own = join('/sys/fs/cgroup', /^0::(.*)$/m.exec(ownCgroups)?.[1] ?? '/');
    if (!readFileSync(join(own, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('memory')) {
      return { unavailable: `the memory controller is not enabled for the children of ${own}` };
    }
    return make(join(own, name), 'memory.max', bytes);
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
}

function make(path: string, limitFile: string, bytes: string): MemoryCgroup {
  mkdirSync(path);
  try {
    writeFileSync(join(path, limitFile), bytes);
  } catch (error) {
    rmdirSync(path);
    throw error;
  }
  return {
    path,
    remove: () => {
      try {
        rmdirSync(path);
      } catch {
        // A process still in it (or already gone): the kernel keeps it until the last one exits.
      }
    },
  };
}
