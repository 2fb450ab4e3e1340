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
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/editor/global-setup.cts',
	maxWorkers: 1,
	testTimeout: 300_000,
};
