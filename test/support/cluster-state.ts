// Cluster-state files under test/fixtures, parsed as the local backend reads them (integration tests).
import { readFileSync } from 'node:fs';
import { type ClusterState, parseClusterState } from '../../src/adapters/local/cluster-state.ts';

export const fixtureClusterStatePath = (name: string): URL => new URL(`../fixtures/${name}`, import.meta.url);

export function loadFixtureClusterState(name: string): ClusterState {
  return parseClusterState(readFileSync(fixtureClusterStatePath(name), 'utf8'), name);
}
