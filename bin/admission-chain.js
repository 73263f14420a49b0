#!/usr/bin/env node
// Entry point from a checkout. The sources are TypeScript run by Node's built-in type stripping
// (Node >= 22.19); npm scripts and npx put node_modules/.bin first on PATH, where the pinned Node 24
// lives. The container image runs the bundled dist/cli/run.js instead (`npm run build`).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `admission-chain needs Node.js >= 22.19 (this is ${process.version}). ` +
      'Run it through npm or npx from the checkout (they use the Node 24 in node_modules/.bin), ' +
      'or install a current Node LTS.\n',
  );
  process.exit(1);
}
await import('../src/cli/run.ts');
