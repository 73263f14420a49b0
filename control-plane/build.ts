// Builds the control plane's binaries when they are missing (npm test runs this first):
//
//   node control-plane/build.ts
//
// Without a Go toolchain it says so and leaves the real-control-plane tests to report their skip;
// under CI=true a missing toolchain is an error, since CI must run those tests.
import { buildMissing, goVersion } from './binaries.ts';

const log = (line: string) => process.stderr.write(`control-plane: ${line}\n`);

const go = await goVersion();
if (go === undefined) {
  const reason =
    'no Go toolchain on PATH, so kube-apiserver, kubectl and etcd cannot be built and the real-control-plane tests will be skipped';
  if (process.env.CI === 'true') {
    log(`${reason}; CI must run them`);
    process.exit(1);
  }
  log(reason);
} else {
  try {
    await buildMissing(log);
  } catch (error) {
    log((error as Error).message);
    process.exit(1);
  }
}
