import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PackageDirectoryLoader } from 'n8n-core';

// `npm test` builds first (pretest), so this loads exactly what the package ships.
const root = join(__dirname, '..', '..');

describe('the built package, loaded by n8n-core the way n8n loads a community package', () => {
	it('loads both nodes and the credential from dist with their icons and codex', async () => {
		expect(existsSync(join(root, 'dist/nodes/BusinessCrm/BusinessCrm.node.js'))).toBe(true);
		const loader = new PackageDirectoryLoader(root);
		await loader.loadAll();

		expect(loader.packageName).toBe('n8n-nodes-business-crm');
		expect(Object.keys(loader.nodeTypes)).toEqual(['businessCrm', 'businessCrmTrigger']);
		expect(Object.keys(loader.credentialTypes)).toEqual(['businessCrmApi']);

		const [node, trigger] = loader.types.nodes;
		expect(node.name).toBe('businessCrm');
		expect(node.iconUrl).toEqual({
			light: 'icons/n8n-nodes-business-crm/dist/icons/businessCrm.svg',
			dark: 'icons/n8n-nodes-business-crm/dist/icons/businessCrm.dark.svg',
		});
		expect(node.codex?.categories).toEqual(['Sales']);
		expect(node.properties.map((p) => p.name)).toContain('requestOptions');

		// The loader gives a polling node its Poll Times and the codex beside the trigger's file.
		expect(trigger.name).toBe('businessCrmTrigger');
		expect(trigger.polling).toBe(true);
		expect(trigger.iconUrl).toEqual(node.iconUrl);
		expect(trigger.codex?.categories).toEqual(['Sales']);
		// The README itself, not the repository's file list: users land on what they read first.
		expect(trigger.codex?.resources?.primaryDocumentation?.[0].url).toBe(
			'https://github.com/n8n-nodes-business-crm/n8n-nodes-business-crm/blob/main/README.md',
		);
		expect(trigger.properties.map((p) => p.name)).toEqual([
			'pollTimes',
			'activationNotice',
			'event',
			'options',
		]);

		const [credential] = loader.types.credentials;
		expect(credential.name).toBe('businessCrmApi');
		expect(credential.supportedNodes).toEqual(['businessCrm', 'businessCrmTrigger']);
		for (const icon of ['businessCrm.svg', 'businessCrm.dark.svg']) {
			expect(existsSync(join(root, 'dist/icons', icon))).toBe(true);
		}
	});
});
