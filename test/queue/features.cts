/**
 * What the packed node offers, read from its description: the queue-mode suite runs a scenario
 * only when the node it tests has the option the scenario needs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { REPO_ROOT } from '../e2e/n8n.cjs';

interface Property {
	name?: string;
	type?: string;
	displayOptions?: { show?: Record<string, unknown[] | undefined> };
	options?: Property[];
	value?: unknown;
}

function shownFor(property: Property, key: string, value: string): boolean {
	const shown = property.displayOptions?.show?.[key];
	return shown === undefined || shown.includes(value);
}

/**
 * The Match On values of Customer › Create › Skip if the Customer Already Exists (`matchOn`), or
 * undefined when the node has no such parameter.
 */
export function skipExistingValues(properties: unknown[]): string[] | undefined {
	for (const property of properties as Property[]) {
		if (property.name !== 'matchOn') continue;
		if (!shownFor(property, 'resource', 'customer') || !shownFor(property, 'operation', 'create'))
			continue;
		return (property.options ?? []).map((choice) => String(choice.value));
	}
	return undefined;
}

/** The description of the built node in dist/, the one `npm pack` ships. */
export function distNodeProperties(): unknown[] {
	const file = path.join(REPO_ROOT, 'dist', 'nodes', 'BusinessCrm', 'BusinessCrm.node.js');
	if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { BusinessCrm } = require(file) as {
		BusinessCrm: new () => { description: { properties: unknown[] } };
	};
	return new BusinessCrm().description.properties;
}
