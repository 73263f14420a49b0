import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start HTTPS servers on loopback; two cores are all we have.
    maxWorkers: 2,
    // Test files share a worker and its loaded modules instead of starting one each: no test mocks
    // a module or stubs the environment or a global, and every server, registry and cache a test
    // needs is its own. A third of the run was starting workers and importing the same modules.
    isolate: false,
  },
});
