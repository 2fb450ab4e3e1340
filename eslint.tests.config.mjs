import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';

// `npm run lint:tests`. eslint.config.mjs must stay n8n's template (n8n Cloud eligibility), and
// it lints only **/*.ts: nodes/ and credentials/. The tests and benchmarks are .cts files, linted
// here with the same config minus its n8n Cloud sandbox rules (n8n's configWithoutCloudSupport).
const TEST_FILES = ['test/**/*.cts', 'benchmarks/**/*.cts'];

export default [
	globalIgnores(['.cache/**', '.test-output/**', 'coverage/**', '.n8n-e2e/**', '.stryker-tmp/**', 'reports/**']),
	// Every block the template applies to **/*.ts applies to the test files instead; the blocks
	// for package.json, nodes/ and credentials/ are `npm run lint`'s.
	...configWithoutCloudSupport.flatMap((block) => {
		if (!block.files) return [block];
		return block.files.includes('**/*.ts') ? [{ ...block, files: TEST_FILES }] : [];
	}),
	{
		files: TEST_FILES,
		// Only what test code cannot do without; every other rule of n8n's config stays on.
		rules: {
			// The CLIs (sandbox, demo, editor, scan) and the benchmarks report on the console.
			'no-console': 'off',
			// The suites start processes: n8n, Redis, Postgres, Chromium, the scanner, the sandbox.
			'@n8n/community-nodes/no-dangerous-functions': 'off',
		},
	},
];
