import type { INodeProperties } from 'n8n-workflow';

function names(property: INodeProperties | undefined): Record<string, string> {
	const entries = (property?.options ?? []).flatMap((option) =>
		'value' in option && typeof option.value === 'string' ? [[option.value, option.name]] : [],
	);
	return Object.fromEntries(entries) as Record<string, string>;
}

type Names = { [value: string]: string | Names };

/** An object literal with a space inside every brace: "}}" would end the expression early. */
function literal(names: Names): string {
	const entries = Object.entries(names).map(
		([key, value]) =>
			`${JSON.stringify(key)}: ${typeof value === 'string' ? JSON.stringify(value) : literal(value)}`,
	);
	return `{ ${entries.join(', ')} }`;
}

/**
 * The canvas subtitle in display names ("Get Many: Customer"), as n8n's UX guidelines ask;
 * `$parameter` holds only the saved values ("getAll"), so the expression carries the names,
 * taken from the Resource and Operation options so that they cannot drift apart.
 */
export function displayNameSubtitle(properties: INodeProperties[]): string {
	const resource = properties.find((property) => property.name === 'resource');
	const operations: Names = Object.fromEntries(
		properties
			.filter((property) => property.name === 'operation')
			.flatMap((property) =>
				(property.displayOptions?.show?.resource ?? []).map((value) => [
					String(value),
					names(property),
				]),
			),
	);
	return `={{ ${literal(operations)}[$parameter["resource"]][$parameter["operation"]] + ": " + ${literal(names(resource))}[$parameter["resource"]] }}`;
}
