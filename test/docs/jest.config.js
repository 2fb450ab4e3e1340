/**
 * The docs check: `npm run test:docs` (see test/docs/check-docs.cts). No build, no n8n install.
 * Transpiled only (test/docs/tsconfig.json): `tsc -p tsconfig.test.json` type-checks it.
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/docs'],
	testMatch: ['**/*.test.cts'],
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/test/docs/tsconfig.json' }],
	},
	moduleFileExtensions: ['js', 'cjs', 'ts', 'cts', 'json'],
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.cjs$': ['$1.cjs', '$1'] },
	setupFiles: ['<rootDir>/test/helpers/setup.cts'],
};
