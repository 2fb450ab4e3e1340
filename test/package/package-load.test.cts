import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadOutputSchema, PackageDirectoryLoader, resolveOutputSchemaPath } from 'n8n-core';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { OUTPUT_SCHEMAS, SCHEMA_FOLDER } from '../helpers/output-schemas.cjs';

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

	it("has an output schema for every operation, where n8n's schema preview looks for it", async () => {
		const loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
		const [node, trigger] = loader.types.nodes;
		// As n8n resolves it: the folder of the node's .js file, from the package's own directory.
		const folderOf = (name: string) => join(root, dirname(loader.known.nodes[name].sourcePath));
		const choices = (property?: INodeProperties) =>
			(property?.options as INodePropertyOptions[]).map((option) => String(option.value));
		const operations = choices(node.properties.find((p) => p.name === 'resource')).flatMap(
			(resource) =>
				choices(
					node.properties.find(
						(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
					),
				).map((operation) => [resource, operation]),
		);
		const schemas = Object.entries(OUTPUT_SCHEMAS).flatMap(([resource, byOperation]) =>
			Object.keys(byOperation).map((operation) => [resource, operation]),
		);
		expect(operations.map(String).sort()).toEqual(schemas.map(String).sort());
		const nodeDir = folderOf('businessCrm');
		for (const [resource, operation] of operations) {
			const source = join(root, 'nodes/BusinessCrm', SCHEMA_FOLDER, resource, `${operation}.json`);
			// The route /schemas/<type>/1.0.0/<resource>/<operation>.json, and the AI builder's lookup.
			const served = resolveOutputSchemaPath({ nodeDir, version: '1.0.0', resource, operation });
			expect(served).toBe(join(nodeDir, SCHEMA_FOLDER, resource, `${operation}.json`));
			expect(readFileSync(served!, 'utf8')).toBe(readFileSync(source, 'utf8'));
			const looked = loadOutputSchema({
				nodeDir,
				version: node.version as number,
				resource,
				operation,
			});
			expect(looked).toEqual(OUTPUT_SCHEMAS[resource][operation]);
		}
		// The trigger ships none: 2.x shows no trigger's preview, 1.123.81 would show one if it did.
		expect(trigger.name).toBe('businessCrmTrigger');
		expect(
			loadOutputSchema({
				nodeDir: folderOf('businessCrmTrigger'),
				version: 1,
				versionFallback: true,
			}),
		).toBeUndefined();
	});
});
