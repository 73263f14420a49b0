// A progress bar on stderr for long runs (audit), drawn only when stderr is a terminal: a log or a
// pipe gets nothing but the final count line. Redrawn at most every tenth of a second, in place.

export interface Progress {
  /** Where the run is: `done` of `total` units (files, resources), and how many objects so far. */
  update(done: number, total: number, unit: string, objects: number): void;
  /** Clears the bar, so the next line starts clean. */
  end(): void;
}

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const none: Progress = { update() {}, end() {} };
const width = 30;

export function progressBar(stream: Stream, now: () => number = Date.now, intervalMs = 100): Progress {
  if (stream.isTTY !== true) return none;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    update(done, total, unit, objects) {
      const at = now();
      if (at - drawnAt < intervalMs) return;
      drawnAt = at;
      drawn = true;
      const filled = total === 0 ? width : Math.min(width, Math.floor((done / total) * width));
      const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${unit}, ${objects} objects audited`;
      stream.write(`\r${line.slice(0, Math.max(0, (stream.columns || 80) - 1))}\x1b[K`);
    },
    end() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
