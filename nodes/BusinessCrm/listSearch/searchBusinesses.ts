import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { recordId } from '../shared/output';
import { readList } from '../shared/pagination';
import { DEFAULT_RETRY_POLICY } from '../shared/transport';
import { BUSINESS_ID_KEYS, BUSINESS_LIST_KEYS } from '../resources/business/getAll';

/** The readable name of a business; the spec does not show its fields, so the likely ones. */
export function businessName(business: Record<string, unknown>): string | undefined {
	for (const key of ['name', 'businessName', 'displayName', 'title', 'companyName']) {
		const value = business[key];
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	}
	return undefined;
}

/**
 * How long one request of the list may take. n8n applies no timeout to list searches, so an API
 * that accepts the connection and never answers would keep the list loading forever.
 */
export const LIST_SEARCH_TIMEOUT_MS = 30_000;

/**
 * Fills the Business list, searchable by name and by ID. The API has no search parameter, so
 * the whole list is read (following its pages if it paginates) and filtered here.
 */
export async function searchBusinesses(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const items = await readList(this, {
		what: 'List businesses',
		options: { method: 'GET', url: '/api/business/list/all', timeout: LIST_SEARCH_TIMEOUT_MS },
		listKeys: BUSINESS_LIST_KEYS,
		idKeys: BUSINESS_ID_KEYS,
		wanted: Infinity,
		pagedFromStart: false,
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
		const id = recordId(business, BUSINESS_ID_KEYS);
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
