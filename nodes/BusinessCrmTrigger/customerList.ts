import type { IDataObject, IHttpRequestOptions, IPollFunctions } from 'n8n-workflow';
import { parseBaseUrl } from '../BusinessCrm/shared/baseUrl';
import { CREDENTIAL_TYPE } from '../BusinessCrm/shared/credential';
import { transportError } from '../BusinessCrm/shared/errors';
import { extractList, recordId } from '../BusinessCrm/shared/output';
import { readList } from '../BusinessCrm/shared/pagination';
import { apiRequest, credentialSecrets, DEFAULT_RETRY_POLICY } from '../BusinessCrm/shared/transport';

const WHAT = 'Read customers';
const LIST_KEYS = ['customers'];
const ID_KEYS = ['id'];
/** A poll must end: a request without an answer in this time fails it (and changes nothing). */
export const REQUEST_TIMEOUT_MS = 60_000;

/** The customers list of the credential's API and organization. */
export interface CustomerList {
	request: IHttpRequestOptions;
	baseUrl: string;
	organizationId: string;
}

export async function customerList(ctx: IPollFunctions): Promise<CustomerList> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	// Only to tell which API the remembered state belongs to: the transport sets the address of
	// every request, and explains an unusable Base URL before anything is sent.
	const baseUrl = parseBaseUrl(credentials.baseUrl).url ?? '';
	return {
		request: {
			method: 'GET',
			url: '/api/public/v1/customers',
			timeout: REQUEST_TIMEOUT_MS,
		},
		baseUrl,
		organizationId: String(credentials.organizationId ?? '').trim(),
	};
}

/** Every customer from `offset` to the end of the list, in list order, each once. */
export async function readCustomersFrom(
	ctx: IPollFunctions,
	list: CustomerList,
	offset: number,
): Promise<IDataObject[]> {
	return await readList(ctx, {
		what: WHAT,
		options: list.request,
		listKeys: LIST_KEYS,
		idKeys: ID_KEYS,
		wanted: Infinity,
		pagedFromStart: true,
		startOffset: offset,
		policy: DEFAULT_RETRY_POLICY,
	});
}

export interface CustomerPage {
	items: IDataObject[];
	total?: number;
	hasMore: boolean;
}

/** One page of the list, with the total the reply gives (if any). */
export async function readPage(
	ctx: IPollFunctions,
	list: CustomerList,
	offset: number,
	limit: number,
): Promise<CustomerPage> {
	const body = await apiRequest(ctx, {
		what: WHAT,
		options: { ...list.request, qs: { limit, offset } },
		policy: DEFAULT_RETRY_POLICY,
	});
	const page = extractList(body, LIST_KEYS);
	if ('problem' in page) {
		throw transportError(
			ctx,
			`${WHAT} failed: the reply does not have the expected shape`,
			`${page.problem} The node understands the list shapes listed in its README.`,
			await credentialSecrets(ctx),
		);
	}
	return {
		items: page.items,
		total: page.pagination?.total,
		hasMore: page.pagination?.hasMore ?? false,
	};
}

/**
 * The ids of the customers, in order. The trigger tells new customers from known ones by id, so
 * a customer without one stops the poll: emitted, it would be emitted again on every poll.
 */
export async function customerIds(
	ctx: IPollFunctions,
	customers: IDataObject[],
): Promise<string[]> {
	const ids: string[] = [];
	for (const customer of customers) {
		const id = recordId(customer, ID_KEYS);
		if (id === undefined) {
			const keys = Object.keys(customer).slice(0, 8).join(', ') || 'none';
			throw transportError(
				ctx,
				`${WHAT} failed: a customer in the list has no id`,
				`The trigger recognises customers it has seen by their id (cust_…), but this record has none (its fields: ${keys}). Nothing was emitted or remembered; the next poll tries again.`,
				await credentialSecrets(ctx),
			);
		}
		ids.push(id);
	}
	return ids;
}
