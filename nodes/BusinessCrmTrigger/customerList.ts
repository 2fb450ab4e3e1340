import type { IPollFunctions } from 'n8n-workflow';
import { readPages, readSteady } from '../BusinessCrm/api/listReader';
import {
	CUSTOMER_LIST,
	MAX_PAGE_SIZE,
	readPage,
	type ListRead,
	type ListSource,
	type Page,
} from '../BusinessCrm/api/lists';
import { DEFAULT_RETRY_POLICY } from '../BusinessCrm/api/retries';

/**
 * The trigger's customer list, read by the package's one list reader. Every customer needs an
 * id: the trigger tells new customers from known ones by id, so one it could not recognise would
 * be emitted on every poll.
 */
export const SOURCE: ListSource = {
	...CUSTOMER_LIST,
	what: 'Read customers',
	policy: DEFAULT_RETRY_POLICY,
	idRequired:
		'The trigger recognises customers it has seen by their id (cust_…), but this record has none',
	afterwards: 'Nothing was emitted or remembered; the next poll tries again.',
};

/** A read of the trigger's list; every id is there (SOURCE.idRequired). */
export type CustomerRead = Omit<ListRead, 'ids'> & { ids: string[] };

/** One page of the list: `limit` customers from `offset`. */
export async function readCustomerPage(
	ctx: IPollFunctions,
	offset: number,
	limit = MAX_PAGE_SIZE,
): Promise<Omit<Page, 'ids'> & { ids: string[] }> {
	return (await readPage(ctx, SOURCE, offset, limit)) as Omit<Page, 'ids'> & { ids: string[] };
}

/**
 * The customers from `offset` to the end of the list, in pages of 100 that overlap by one. With
 * an `anchor`, the customer at `offset` must be that one, or the read stops after its first page.
 */
export async function readCustomers(
	ctx: IPollFunctions,
	offset: number,
	anchor?: string,
): Promise<CustomerRead> {
	return (await readPages(ctx, SOURCE, { offset, anchor })) as CustomerRead;
}

/**
 * readCustomers, made again when its pages could not be checked (see readSteady); `until` may
 * stop it between pages (see ListRead.unfinished).
 */
export async function readCustomersSteady(
	ctx: IPollFunctions,
	offset: number,
	anchor?: string,
	until?: () => boolean,
): Promise<CustomerRead> {
	return (await readSteady(ctx, SOURCE, { offset, anchor, until })) as CustomerRead;
}
