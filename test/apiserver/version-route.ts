// GET /version for the stand-in API server, as kube-apiserver answers it (apimachinery's
// version.Info), with a version the test can change mid-run (a control-plane upgrade).
import type { StandInApiServer } from './index.ts';

export const versionRoute = 'discovery /version';

export interface ServedVersion {
  /** Answers this release from now on; `emulated` adds the emulation version fields. */
  set(gitVersion: string, emulated?: { major: string; minor: string }): void;
}

export function serveVersion(
  server: Pick<StandInApiServer, 'addRoute'>,
  gitVersion: string,
  emulated?: { major: string; minor: string },
): ServedVersion {
  let info = versionInfo(gitVersion, emulated);
  server.addRoute({ name: versionRoute, method: 'GET', pattern: '/version', handle: (_request, respond) => respond.json(200, info) });
  return {
    set(next, nextEmulated) {
      info = versionInfo(next, nextEmulated);
    },
  };
}

/** "v1.33.2-eks-1" → major "1", minor "33+" (providers' builds add the "+"), as the real answer has. */
function versionInfo(gitVersion: string, emulated: { major: string; minor: string } | undefined) {
  const [, major = '', minor = '', suffix = ''] = /^v(\d+)\.(\d+)\.\d+(.*)$/.exec(gitVersion) ?? [];
  return {
    major,
    minor: suffix === '' ? minor : `${minor}+`,
    ...(emulated !== undefined ? { emulationMajor: emulated.major, emulationMinor: emulated.minor } : {}),
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.25.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
