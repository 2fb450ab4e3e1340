/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The real-n8n, queue-mode and editor suites install n8n and take minutes: each has its own
	// config and script.
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/queue/', '/test/editor/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/helpers/setup.cts'],
	testTimeout: 60_000,
	// `npm test -- --coverage`: the node code only, held to the thresholds CI enforces.
	collectCoverageFrom: ['<rootDir>/nodes/**/*.ts', '<rootDir>/credentials/**/*.ts'],
	coverageThreshold: {
		'./nodes/': { lines: 95, branches: 90 },
		'./credentials/': { lines: 95, branches: 90 },
	},
};
