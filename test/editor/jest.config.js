/**
 * Editor suite: `npm run test:editor`. Headless Debian Chromium (test/editor/install-chromium.sh)
 * driven by playwright-core against a real n8n (e2eTarget(), 2.8.4 by default) and the sandbox API.
 * The files run one after the other: each starts an n8n and a browser, and the machine has 2 cores.
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	roots: ['<rootDir>/test/editor'],
	testMatch: ['**/*.test.cts'],
	// Tests are .cts (outside the n8n lint config's **/*.ts), the node code .ts; a test imports
	// another as './x.cjs', mapped to x.cts here, or to a real .cjs file of a dependency first.
	moduleFileExtensions: ['js', 'mjs', 'cjs', 'ts', 'cts', 'json', 'node'],
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.cjs$': ['$1.cjs', '$1'] },
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/editor/global-setup.cts',
	maxWorkers: 1,
	testTimeout: 300_000,
};
