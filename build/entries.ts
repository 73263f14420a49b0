// What the production build emits, shared with the tests that hold the image and the chart to it.

/** The build's output directory, relative to the repository root. */
export const outDir = 'dist';

/** Entry points: output name (under outDir, `.js` added) → source file. */
export const entries = { 'cli/run': 'src/cli/run.ts' } as const;
