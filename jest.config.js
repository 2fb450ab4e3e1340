/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.cts'],
	// The real-n8n (durable scheduler included), queue-mode and editor suites install n8n and take
	// minutes; the docs check runs on its own first in CI. Each has its own config and script.
	testPathIgnorePatterns: [
		'/node_modules/',
		'/test/e2e/',
		'/test/durable/',
		'/test/queue/',
		'/test/editor/',
		'/test/docs/',
	],
	// Tests are .cts (outside the n8n lint config's **/*.ts), the node code .ts; a test imports
	// another as './x.cjs', mapped to x.cts here, or to a real .cjs file of a dependency first.
	moduleFileExtensions: ['js', 'mjs', 'cjs', 'ts', 'cts', 'json', 'node'],
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.cjs$': ['$1.cjs', '$1'] },
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/helpers/setup.cts'],
	testTimeout: 60_000,
	// Jest's default is one worker fewer than the cores: one on the 2-core machines CI and we run
	// on, so the files ran one after another (102 s; 54-58 s with two, 70 s beside a busy core).
	maxWorkers: 2,
	// `npm test -- --coverage`: the node code only, held to the thresholds CI enforces.
	// In a dot folder: the HTML report's images would otherwise be copied into dist/ by the build.
	coverageDirectory: '<rootDir>/.test-output/coverage',
	collectCoverageFrom: ['<rootDir>/nodes/**/*.ts', '<rootDir>/credentials/**/*.ts'],
	coverageThreshold: {
		'./nodes/': { lines: 95, branches: 90 },
		'./credentials/': { lines: 95, branches: 90 },
	},
};
