import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * Jest's moduleNameMapper does not apply to globalSetup: Node resolves its requires and finds no
 * n8n.cjs (the file is n8n.cts). So the two files are required by their real names; jest's
 * transform hook compiles them. chromium.cts imports nothing, n8n.cts only node: modules.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { CHROMIUM } = require(
	path.join(__dirname, 'chromium.cts'),
) as typeof import('./chromium.cjs');
const n8n = require(
	path.join(__dirname, '..', 'e2e', 'n8n.cts'),
) as typeof import('../e2e/n8n.cjs');
/* eslint-enable @typescript-eslint/no-require-imports */

/** Jest globalSetup: Chromium is there, and the n8n under test is installed (progress on stderr). */
export default async function globalSetup(): Promise<void> {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: run test/editor/install-chromium.sh (as root) first`);
	}
	await n8n.ensureN8n(await n8n.e2eTarget());
}
