/** The lists of the API, how to read one page of them, and what a read of a whole list gives. */
import type { IDataObject } from 'n8n-workflow';
import type { Context } from '../context';
import { transportError } from '../errors/errors';
import type { ErrorType } from '../errors/errorTypes';
import { MAX_PARALLEL_REQUESTS } from './pacing';
import { extractList, recordId } from './replyShapes';
import type { RetryPolicy } from './retries';
import { apiRequest } from './transport';
import { credentialSecrets } from './requestCredential';

/** The most items the API serves per page (spec section 8). */
export const MAX_PAGE_SIZE = 100;
/**
 * Pages read at once when the first page gives a total, unless Options › Pages Read at Once says
 * otherwise. The smallest number that reads 10,000 customers in about a second from an API 50 ms
 * away; never more than the run's gate (MAX_PARALLEL_REQUESTS) lets through anyway.
 */
export const DEFAULT_PAGES_IN_PARALLEL = 10;
/** The most pages in flight a user may ask for: the run's request gate. */
export const MAX_PAGES_IN_PARALLEL = MAX_PARALLEL_REQUESTS;
/** Without a `total` to bound it, a read stops after this many pages (10 million items). */
export const MAX_PAGES_WITHOUT_TOTAL = 100_000;
/**
 * Pages in a row that bring no new item before a read is called stuck. The spec allows empty
 * pages, so a few are tolerated; a server that answers hasMore forever is not.
 */
export const MAX_PAGES_WITHOUT_PROGRESS = 10;
/** Reads of a list that moved under each of them before a read that must be whole gives up. */
export const MAX_READS = 3;

/** A list of the API and how to read it: every list the package reads is one of these. */
export interface ListSource {
	/** Says what the read was for, in errors ("Get many customers"). */
	what: string;
	url: string;
	/** What the list holds, in messages: "customers", "businesses"; one of them: "customer". */
	noun: string;
	one: string;
	/** Keys under `content` where the list may be (see extractList). */
	listKeys: string[];
	/** Keys that identify a record: for de-duplication and for joining pages. */
	idKeys: string[];
	/**
	 * Whether the first request already carries limit and offset. The customers list documents
	 * them; the business list does not, so its first request goes without and limit/offset are
	 * sent only once a reply shows pagination.
	 */
	pagedFromStart: boolean;
	policy: RetryPolicy;
	itemIndex?: number;
	/** Pages in flight at once once the total is known; 1 reads page after page. */
	pagesInParallel?: number;
	/** When set, a record without an id stops the read, and this says why it must have one. */
	idRequired?: string;
	/** Said after an error that stopped a read: what did not happen because of it. */
	afterwards?: string;
}

/** The customer list (spec section 4): paged by limit and offset from its first request. */
export const CUSTOMER_LIST: Omit<ListSource, 'what' | 'policy'> = {
	url: '/api/public/v1/customers',
	noun: 'customers',
	one: 'customer',
	listKeys: ['customers'],
	idKeys: ['id'],
	pagedFromStart: true,
};

/** The business list (spec section 3): its first request goes without limit and offset (none shown). */
export const BUSINESS_LIST: Omit<ListSource, 'what' | 'policy'> = {
	url: '/api/business/list/all',
	noun: 'businesses',
	one: 'business',
	listKeys: ['businesses', 'items', 'data'],
	idKeys: ['id', '_id', 'businessId', 'uuid'],
	pagedFromStart: false,
};

/** One page of a list. */
export interface Page {
	items: IDataObject[];
	/** The id of each item, in the same order; undefined for an item without one. */
	ids: Array<string | undefined>;
	/** The total the reply gives, when it is a whole number of items. */
	total?: number;
	hasMore: boolean;
	/** The page size the API applied: its `limit`, else the items it sent. */
	applied: number;
}

/**
 * An error that stopped a read of `source`, with what did not happen because of it. Mostly a
 * reply the node cannot read; a list that would not hold still is 'unavailable': later may work.
 */
export async function failedRead(
	ctx: Context,
	source: ListSource,
	message: string,
	description: string,
	type: ErrorType = 'unexpectedReply',
) {
	return transportError(
		ctx,
		`${source.what} failed: ${message}`,
		`${description}${source.afterwards ? ` ${source.afterwards}` : ''}`,
		await credentialSecrets(ctx, source.itemIndex),
		source.itemIndex,
		'maybe',
		type,
	);
}

/** After "<what> failed: ": a reply in which no list is found. */
export const UNEXPECTED_SHAPE = 'the reply does not have the expected shape';
/** Ends the advice for such a reply. */
export const LIST_SHAPES_HELP = 'The node understands the list shapes listed in its README.';
/** Before the noun: a reply for another offset than the one asked for. */
export const SKIP_OR_REPEAT = 'The read stopped rather than skip or repeat';
/** After "a <one>": a record without an id where the source needs one. */
export const NO_ID = 'in the list has no id';

function wholeNumber(value: number | undefined): number | undefined {
	return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** One page: `limit` items from `offset`, or the list as the API gives it without them. */
export async function readPage(
	ctx: Context,
	source: ListSource,
	offset: number,
	limit: number | undefined,
): Promise<Page> {
	const body = await apiRequest(ctx, {
		what: source.what,
		method: 'GET',
		url: source.url,
		qs: limit === undefined ? undefined : { limit, offset },
		policy: source.policy,
		itemIndex: source.itemIndex,
		listPage: true,
	});
	const page = extractList(body, source.listKeys);
	if ('problem' in page) {
		throw await failedRead(ctx, source, UNEXPECTED_SHAPE, `${page.problem} ${LIST_SHAPES_HELP}`);
	}
	const pagination = page.pagination;
	if (pagination?.offset !== undefined && pagination.offset !== offset) {
		throw await failedRead(
			ctx,
			source,
			`the API answered for offset ${pagination.offset} when offset ${offset} was asked for`,
			`${SKIP_OR_REPEAT} ${source.noun}. This is an inconsistency in the API.`,
		);
	}
	const ids = page.items.map((item) => recordId(item, source.idKeys));
	const missing = source.idRequired === undefined ? -1 : ids.indexOf(undefined);
	if (missing >= 0) {
		const keys = Object.keys(page.items[missing]).slice(0, 8).join(', ') || 'none';
		throw await failedRead(
			ctx,
			source,
			`a ${source.one} ${NO_ID}`,
			`${source.idRequired} (its fields: ${keys}).`,
		);
	}
	const limitApplied = pagination?.limit;
	return {
		items: page.items,
		ids,
		// A total that is not a whole number of items bounds nothing: read as absent.
		total: wholeNumber(pagination?.total),
		hasMore: pagination?.hasMore ?? false,
		applied:
			limitApplied !== undefined && Number.isInteger(limitApplied) && limitApplied > 0
				? limitApplied
				: page.items.length,
	};
}

/** A read of a list from some offset to its end (or to the items wanted). */
export interface ListRead {
	/** Every item read, each once, in list order. */
	items: IDataObject[];
	ids: Array<string | undefined>;
	/** The offset just past the last item read: the list's length when it was read to its end. */
	end: number;
	/** False when the first item read was not the anchor asked for; then nothing else was read. */
	anchored: boolean;
	/**
	 * Whether every page began with the item the page before ended with. Then no item that was in
	 * the list for the whole read was skipped, however the pages were timed: each page is one
	 * answer of the API, and the pages join end to end. An item deleted or inserted before a page
	 * between two answers shifts that page, which then begins elsewhere.
	 */
	consistent: boolean;
	/**
	 * Whether a page began elsewhere than where the page before ended: the list moved. A read that
	 * is neither consistent nor moved had pages that could not overlap (one item, or items without
	 * ids) and could not be checked (see readSteady).
	 */
	moved: boolean;
	/**
	 * Set when the read stopped before the list's end because `until` said so: it holds every
	 * item up to `end`, and a read from `end - 1` anchored on the last id goes on from there.
	 */
	unfinished?: true;
}

/** Where a read starts and what it wants. */
export interface ReadFrom {
	/** The offset of the first page; 0 by default. */
	offset?: number;
	/** The id the item at `offset` must have; when it has another, the read stops there. */
	anchor?: string;
	/** How many items (kept items, with `keep`) to return; all by default. */
	wanted?: number;
	/** Only items it accepts are returned and counted; every item still joins the pages. */
	keep?: (item: IDataObject) => boolean;
	/**
	 * Asked after each page: once true, no more pages are asked for; those already asked for are
	 * read, and the read stops after them (see ListRead.unfinished), so a read too long for one
	 * poll can go on at the next. Only where the next page can be anchored.
	 */
	until?: () => boolean;
}
