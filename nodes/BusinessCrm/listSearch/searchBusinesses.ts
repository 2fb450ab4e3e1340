import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { recordId } from '../api/replyShapes';
import { readWhole } from '../api/listReader';
import { BUSINESS_LIST } from '../api/lists';
import { DEFAULT_RETRY_POLICY } from '../api/retries';

/** The readable name of a business; the spec does not show its fields, so the likely ones. */
export function businessName(business: Record<string, unknown>): string | undefined {
	for (const key of ['name', 'businessName', 'displayName', 'title', 'companyName']) {
		const value = business[key];
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	}
	return undefined;
}

/**
 * Fills the Business list, searchable by name and by ID. The API has no search parameter, so
 * the whole list is read (following its pages if it paginates) and filtered here.
 */
export async function searchBusinesses(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	// Each request ends within LIST_SEARCH_TIMEOUT_MS (requestSettings): n8n gives list searches
	// no timeout, and the list must not load forever.
	const { items } = await readWhole(this, {
		...BUSINESS_LIST,
		what: 'List businesses',
		policy: DEFAULT_RETRY_POLICY,
	});

	const needle = filter?.trim().toLowerCase() ?? '';
	const nameCounts = new Map<string, number>();
	for (const business of items) {
		const name = businessName(business);
		if (name) nameCounts.set(name, (nameCounts.get(name) ?? 0) + 1);
	}
	const results: INodeListSearchItems[] = [];
	for (const business of items) {
		const id = recordId(business, BUSINESS_LIST.idKeys);
		if (id === undefined) continue;
		const name = businessName(business);
		// The name alone, so the dropdown does not cut it off; the ID is the value and is searched,
		// and shown only to tell apart businesses of the same name.
		if (needle && !`${name ?? ''} ${id}`.toLowerCase().includes(needle)) continue;
		const label = !name ? id : (nameCounts.get(name) ?? 0) > 1 ? `${name} (${id})` : name;
		results.push({ name: label, value: id });
	}
	return { results };
}
