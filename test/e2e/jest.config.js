/**
 * Real-n8n end-to-end suite: `npx jest -c test/e2e/jest.config.js`.
 * The first run installs n8n into .cache/n8n/<version>/ (minutes, ~2.3 GB); later runs reuse it.
 * N8N_E2E_VERSION / N8N_E2E_NODE choose another n8n (e.g. 2.40.7 on 24.21.0), see e2eTarget().
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.cts'],
	// Tests are .cts (outside the n8n lint config's **/*.ts), the node code .ts; a test imports
	// another as './x.cjs', mapped to x.cts here, or to a real .cjs file of a dependency first.
	moduleFileExtensions: ['js', 'mjs', 'cjs', 'ts', 'cts', 'json', 'node'],
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.cjs$': ['$1.cjs', '$1'] },
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	// Installs n8n once, before any worker starts, so no test timeout has to cover it.
	globalSetup: '<rootDir>/test/e2e/global-setup.cts',
	// Each `n8n execute` is a fresh n8n process (~2-4 s); `n8n start` takes ~6 s.
	testTimeout: 300_000,
};
