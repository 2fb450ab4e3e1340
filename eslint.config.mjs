import { config } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';

// n8n's community-node config (n8n Cloud rules) applies to every .ts file.
// nodes/ and credentials/ pass it unchanged. Only the code that never ships in
// the package relaxes the Cloud sandbox rules, because it must do what node code
// may not: the sandbox is an HTTP server (node:http, process signals, timers),
// and the tests and benchmarks start processes, read the environment and wait.
// That is why package.json sets "strict": false.
export default [
	globalIgnores(['.cache/**', 'coverage/**', '.n8n-e2e/**', '.stryker-tmp/**', 'reports/**']),
	...config,
	{
		files: ['test/**/*.ts', 'benchmarks/**/*.ts'],
		rules: {
			'@n8n/community-nodes/no-restricted-globals': 'off',
			'@n8n/community-nodes/no-restricted-imports': 'off',
			'@n8n/community-nodes/no-dead-files': 'off',
			'@n8n/community-nodes/no-dangerous-functions': 'off',
			'@n8n/community-nodes/require-node-api-error': 'off',
			'import-x/no-nodejs-modules': 'off',
			'no-console': 'off',
		},
	},
];
