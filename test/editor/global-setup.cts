import * as fs from 'node:fs';

import { e2eTarget, ensureN8n } from '../e2e/n8n.cjs';
import { CHROMIUM } from './browser.cjs';

/** Jest globalSetup: Chromium is there, and the n8n under test is installed (progress on stderr). */
export default async function globalSetup(): Promise<void> {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: run test/editor/install-chromium.sh (as root) first`);
	}
	await ensureN8n(await e2eTarget());
}
