/**
 * How every generated (fast-check) test runs. `npm test` runs each property on a fixed seed, so a
 * run is the same run on every machine and a failure can be replayed. CI's longer pass
 * (`npm run test:properties`, see .ci/run) sets PROPERTY_SEED to a fresh seed, which it prints,
 * and PROPERTY_RUNS to a multiple of each property's own number of runs.
 *
 * To replay a failure, pass the seed and path fast-check printed:
 * `PROPERTY_SEED=<seed> PROPERTY_PATH=<path> npx jest <file> -t '<property>'`.
 */
import fc from 'fast-check';

const FIXED_SEED = 20261207;

function fromEnvironment(name: string): string | undefined {
	const value = process.env[name];
	return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The seed of this run: PROPERTY_SEED, or the fixed one. */
export const PROPERTY_SEED = Number(fromEnvironment('PROPERTY_SEED') ?? FIXED_SEED);
const PATH = fromEnvironment('PROPERTY_PATH');
const FACTOR = Number(fromEnvironment('PROPERTY_RUNS') ?? 1);

if (!Number.isSafeInteger(PROPERTY_SEED)) throw new Error('PROPERTY_SEED must be a whole number');
if (!(FACTOR > 0)) throw new Error('PROPERTY_RUNS must be a number above 0');

fc.configureGlobal({ seed: PROPERTY_SEED, ...(PATH ? { path: PATH } : {}) });

/**
 * A property's parameters: `numRuns` runs in `npm test` (keep the suite in its 90 s), times
 * PROPERTY_RUNS in CI's longer pass; `extra` for fast-check's own options.
 */
export function runs<T>(numRuns: number, extra: fc.Parameters<T> = {}): fc.Parameters<T> {
	return {
		seed: PROPERTY_SEED,
		...(PATH ? { path: PATH } : {}),
		numRuns: Math.max(1, Math.round(numRuns * FACTOR)),
		...extra,
	};
}

export { fc };
