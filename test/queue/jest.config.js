/**
 * Queue-mode suite: `npm run test:queue`. n8n 2.8.4 (installed into .cache/ on first use, as for
 * test/e2e) with Redis and Postgres from test/queue/install-services.sh, all started and
 * stopped by the suite. See README "Scaling (queue mode)".
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.cts'],
	// Tests are .cts (outside the n8n lint config's **/*.ts), the node code .ts; a test imports
	// another as './x.cjs', mapped to x.cts here, or to a real .cjs file of a dependency first.
	moduleFileExtensions: ['js', 'mjs', 'cjs', 'ts', 'cts', 'json', 'node'],
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.cjs$': ['$1.cjs', '$1'] },
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	// Installs n8n once, before the suite starts, so no test timeout has to cover it.
	globalSetup: '<rootDir>/test/e2e/global-setup.cts',
	// Starting the cluster takes ~20 s; an import at 20 requests/s ~30 s.
	testTimeout: 300_000,
};
