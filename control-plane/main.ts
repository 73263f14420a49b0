// `npm run control-plane`: etcd and kube-apiserver on loopback, in the foreground, until SIGINT or
// SIGTERM; then both stop and everything they wrote is removed. Prints the admin kubeconfig's path.
//
//   node control-plane/main.ts [-- <extra kube-apiserver flags>]
import { buildMissing, goVersion } from './binaries.ts';
import { startControlPlane } from './control-plane.ts';

const log = (line: string) => process.stderr.write(`control-plane: ${line}\n`);

if ((await goVersion()) === undefined) {
  log('no Go toolchain on PATH: kube-apiserver, kubectl and etcd are built from their Go modules and need one');
  process.exit(1);
}
try {
  const binaries = await buildMissing(log);
  log(`starting etcd ${binaries.etcdVersion} and kube-apiserver ${binaries.kubernetesVersion}`);
  const controlPlane = await startControlPlane({ apiServerArgs: process.argv.slice(2) });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    controlPlane.stop().then(
      () => process.exit(0),
      (error: Error) => {
        log(`stopping failed: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  log(`kube-apiserver ${binaries.kubernetesVersion} is ready at ${controlPlane.server}`);
  process.stdout.write(
    [
      `kubeconfig: ${controlPlane.kubeconfigPath}`,
      `kubectl:    ${binaries.kubectl}`,
      '',
      `  ${binaries.kubectl} --kubeconfig ${controlPlane.kubeconfigPath} version`,
      '',
      'Ctrl-C stops both and removes their data.',
      '',
    ].join('\n'),
  );
} catch (error) {
  log((error as Error).message);
  process.exit(1);
}
