// A full garbage collection on demand, for the in-flight budget: what a heavy request allocated is
// counted until it is collected (util/budget.ts), and V8 collects when its heap nears the limit it
// sized from the machine or the cgroup, not when the budget needs the room. V8 hands out its gc()
// only behind --expose-gc; it is asked for here, so the image's command line, the chart's and every
// other way of starting the server stay as they are, and no global `gc` appears.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A function that runs a full, synchronous garbage collection. */
export function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as unknown;
  // Contexts made after this one get no gc of their own.
  setFlagsFromString('--no-expose-gc');
  if (typeof gc !== 'function') throw new Error('this Node does not expose its garbage collector through --expose-gc');
  return gc as () => void;
}
