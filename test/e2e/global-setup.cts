import * as path from 'node:path';

/*
 * Jest's moduleNameMapper does not apply to globalSetup: Node resolves its requires and finds no
 * n8n.cjs (the file is n8n.cts). So n8n.cts is required by its real name; jest's transform hook
 * compiles it.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { e2eTarget, ensureN8n } = require(
	path.join(__dirname, 'n8n.cts'),
) as typeof import('./n8n.cjs');
/* eslint-enable @typescript-eslint/no-require-imports */

/** Jest globalSetup: makes sure the n8n under test is installed (progress on stderr). */
export default async function globalSetup(): Promise<void> {
	await ensureN8n(await e2eTarget());
}

// Run directly (`npx tsx test/e2e/global-setup.cts`, with N8N_E2E_VERSION / N8N_E2E_NODE set as
// the suite's npm scripts set them), it installs ahead of time: .ci/run does so in the background
// while the in-process suite runs, and the suite's own globalSetup then finds the install ready.
if (require.main === module) {
	globalSetup().catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
}
