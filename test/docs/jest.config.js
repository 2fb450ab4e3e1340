/**
 * The docs check: `npm run test:docs` (see test/docs/check-docs.cts). No build, no n8n install.
 * Transpiled only (test/docs/tsconfig.json): `tsc -p tsconfig.test.json` type-checks it.
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/docs'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/docs/tsconfig.json' }],
	},
	setupFiles: ['<rootDir>/test/helpers/setup.cts'],
};
