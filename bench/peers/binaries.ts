// The peers' binaries — Gatekeeper's manager and Kyverno's admission controller — built from their Go
// modules at the releases the wrapper modules in bench/peers/modules pin, into the same machine-level
// cache as the control plane (its own subfolder, keyed the same way). Built by the benchmark only.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Build, buildDir, buildEach, requiredVersion } from '../../control-plane/binaries.ts';

const modulesDir = join(import.meta.dirname, 'modules');
const cacheFolder = 'peers';

export interface PeerBinaries {
  gatekeeper: string;
  gatekeeperVersion: string;
  kyverno: string;
  kyvernoVersion: string;
}

/** The builds, read from the wrapper modules' go.mod files; each stamps its version as its release build does. */
export function peerBuilds(): { gatekeeper: Build; kyverno: Build } {
  const gatekeeper = requiredVersion('gatekeeper', 'github.com/open-policy-agent/gatekeeper/v3', modulesDir);
  const kyverno = requiredVersion('kyverno', 'github.com/kyverno/kyverno', modulesDir);
  return {
    gatekeeper: {
      name: 'gatekeeper',
      modulesDir,
      cacheFolder,
      tags: [],
      module: 'github.com/open-policy-agent/gatekeeper/v3',
      version: gatekeeper,
      // The manager is the module root's main package (its Makefile builds it as bin/manager).
      commands: { 'github.com/open-policy-agent/gatekeeper/v3': 'manager' },
      ldflags: [`-X github.com/open-policy-agent/gatekeeper/v3/pkg/version.Version=${gatekeeper}`],
    },
    kyverno: {
      name: 'kyverno',
      modulesDir,
      cacheFolder,
      tags: [],
      module: 'github.com/kyverno/kyverno',
      version: kyverno,
      commands: { 'github.com/kyverno/kyverno/cmd/kyverno': 'kyverno' },
      ldflags: [`-X github.com/kyverno/kyverno/pkg/version.BuildVersion=${kyverno}`],
    },
  };
}

/** Builds whichever peer is missing (a cold Kyverno build takes a quarter of an hour or more on two cores). */
export async function buildPeers(report: (line: string) => void): Promise<PeerBinaries> {
  const { gatekeeper, kyverno } = peerBuilds();
  await buildEach([gatekeeper, kyverno], report);
  const found = {
    gatekeeper: join(buildDir(gatekeeper), 'manager'),
    gatekeeperVersion: gatekeeper.version,
    kyverno: join(buildDir(kyverno), 'kyverno'),
    kyvernoVersion: kyverno.version,
  };
  for (const path of [found.gatekeeper, found.kyverno]) if (!existsSync(path)) throw new Error(`not built: ${path}`);
  return found;
}

/** Where a module's files are in the Go module cache (the peers' CRDs come from there). */
export function moduleSourceDir(goModCache: string, build: Build): string {
  // The module cache escapes capitals as !lowercase; neither module path has any.
  return join(goModCache, `${build.module}@${build.version}`);
}
