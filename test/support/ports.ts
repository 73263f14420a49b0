// The ports a plugin is built on in a unit test: silent logging, a recording clock and fixed
// randomness, and whatever the test gives besides (in-memory lookups, an authorizer, a REST mapper).
import type { Ports } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/logger.ts';
import { FixedRandom, RecordingClock } from './clock.ts';

export function testPorts<P extends Partial<Ports>>(given: P = {} as P): Ports & P {
  return { logger: silentLogger, clock: new RecordingClock(), random: new FixedRandom(), ...given };
}
