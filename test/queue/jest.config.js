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
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	// Installs n8n once, before the suite starts, so no test timeout has to cover it.
	globalSetup: '<rootDir>/test/e2e/global-setup.cts',
	// Starting the cluster takes ~20 s; an import at 20 requests/s ~30 s.
	testTimeout: 300_000,
};
