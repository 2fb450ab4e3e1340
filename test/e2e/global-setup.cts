import { e2eTarget, ensureN8n } from './n8n.cjs';

/** Jest globalSetup: makes sure the n8n under test is installed (progress on stderr). */
export default async function globalSetup(): Promise<void> {
	await ensureN8n(await e2eTarget());
}
