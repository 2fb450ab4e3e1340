import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { transportError } from './errors';
import { extractList, recordId } from './output';
import {
	apiRequest,
	credentialSecrets,
	MAX_PARALLEL_REQUESTS,
	type RetryPolicy,
} from './transport';

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

export interface ListRead {
	what: string;
	options: IHttpRequestOptions;
	/** Keys under `content` where the list may be (see extractList). */
	listKeys: string[];
	/** Keys that identify a record, for de-duplication. */
	idKeys: string[];
	/** How many items to return; Infinity for all. */
	wanted: number;
	/**
	 * Whether the first request already carries limit and offset. The customers list documents
	 * them; the business list does not, so its first request goes without and limit/offset
	 * are sent only once a reply shows pagination.
	 */
	pagedFromStart: boolean;
	/** The offset of the first page; 0 unless the caller already has the items before it. */
	startOffset?: number;
	policy: RetryPolicy;
	itemIndex?: number;
	/** Pages in flight at once once the total is known; 1 reads page after page. */
	pagesInParallel?: number;
}

function positiveInteger(value: number | undefined): number | undefined {
	return value !== undefined && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** A page asked for: the limit sent (undefined for a bare first request) and its reply. */
interface Request {
	limit: number | undefined;
	reply: Promise<{ body: unknown } | { error: unknown }>;
}

/**
 * Reads a list by the spec's offset pagination: start at offset 0, add the page size to the
 * offset after each page, stop when hasMore is false or enough items arrived. Pages of 100 when
 * more are wanted, so N items take ceil(N/100) requests. Written by hand because n8n's built-in
 * pagination has no per-page 429 retry, no runaway bound, no de-duplication and no parallel pages.
 *
 * Parallel pages: once a paged reply gives a total, the offsets up to it are known, so up to
 * `pagesInParallel` of them are asked for at once. The replies are still read one by one in
 * offset order by the same rules as page after page, so items, order and errors are those of a
 * sequential read; a page read ahead is used only when its offset is the one the sequential read
 * would ask for next. Pages that contradict the total (a short page with hasMore, a smaller total,
 * hasMore on the last page) end the reading ahead: the rest is read page after page.
 *
 * It cannot run away: a reply whose hasMore contradicts its own total, or pages that bring nothing
 * new, end the read with an error; items already seen (offsets shift when records are added during
 * the read) are returned once. A reply for another offset than the one asked for is an error too,
 * so offsets only ever grow from the start offset and are never negative.
 */
export async function readList(
	ctx: IExecuteSingleFunctions | ILoadOptionsFunctions | IPollFunctions,
	read: ListRead,
): Promise<IDataObject[]> {
	const inFlight = Math.max(1, read.pagesInParallel ?? DEFAULT_PAGES_IN_PARALLEL);
	const items: IDataObject[] = [];
	const seen = new Set<string>();
	let offset = read.startOffset ?? 0;
	let paged = read.pagedFromStart;
	let requests = 0;
	let pagesWithoutProgress = 0;
	/** Pages asked for ahead of the one being read, by offset. */
	const ahead = new Map<number, Request>();
	/**
	 * The offsets still to read ahead: from `next` in steps of `step`, below `end` (the total, or
	 * fewer when fewer items are wanted); `wantedEnd` is where the wanted items end.
	 */
	let plan: { next: number; step: number; end: number; wantedEnd: number } | undefined;
	let planned = false;
	let aheadFailed = false;

	const fail = async (message: string, description: string) =>
		transportError(
			ctx,
			`${read.what} failed: ${message}`,
			description,
			await credentialSecrets(ctx),
			read.itemIndex,
		);

	const ask = (at: number, limit: number | undefined): Request => {
		requests++;
		const qs = limit === undefined ? read.options.qs : { ...read.options.qs, limit, offset: at };
		const reply = apiRequest(ctx, {
			what: read.what,
			options: { ...read.options, qs },
			policy: read.policy,
			itemIndex: read.itemIndex,
			listPage: true,
		}).then(
			(body) => ({ body }),
			(error: unknown) => {
				aheadFailed = true;
				return { error };
			},
		);
		return { limit, reply };
	};
	const readAhead = () => {
		while (plan && !aheadFailed && ahead.size < inFlight - 1 && plan.next < plan.end) {
			const limit = Math.min(MAX_PAGE_SIZE, plan.wantedEnd - plan.next);
			ahead.set(plan.next, ask(plan.next, limit));
			plan.next += plan.step;
		}
	};
	// Nothing this read asked for outlives it: a failed or finished read first lets the pages in
	// flight end, whose replies are then dropped.
	const settle = async () => {
		plan = undefined;
		await Promise.all([...ahead.values()].map(async (request) => await request.reply));
		ahead.clear();
	};

	try {
		for (;;) {
			const pageSize = Math.min(MAX_PAGE_SIZE, read.wanted - items.length);
			let request = ahead.get(offset);
			if (request) ahead.delete(offset);
			else {
				// Pages read ahead for other offsets than this one are of no use: page after page.
				if (ahead.size > 0) await settle();
				request = ask(offset, paged ? pageSize : undefined);
			}
			readAhead();
			const reply = await request.reply;
			if ('error' in reply) throw reply.error;

			const page = extractList(reply.body, read.listKeys);
			if ('problem' in page) {
				throw await fail(
					'the reply does not have the expected shape',
					`${page.problem} The node understands the list shapes listed in its README.`,
				);
			}

			const before = items.length;
			for (const item of page.items) {
				const id = recordId(item, read.idKeys);
				if (id !== undefined) {
					if (seen.has(id)) continue;
					seen.add(id);
				}
				items.push(item);
				if (items.length >= read.wanted) break;
			}
			pagesWithoutProgress = items.length > before ? 0 : pagesWithoutProgress + 1;

			const pagination = page.pagination;
			if (pagination?.offset !== undefined && pagination.offset !== offset) {
				throw await fail(
					`the API answered for offset ${pagination.offset} when offset ${offset} was asked for`,
					`The read stopped rather than skip or repeat items, after ${requests} requests (${items.length} items had arrived). This is an inconsistency in the API.`,
				);
			}
			if (!pagination?.hasMore || items.length >= read.wanted) return items;
			const applied = positiveInteger(pagination.limit) ?? request.limit ?? page.items.length;
			const nextOffset = offset + Math.max(applied, 1);

			const total = pagination.total;
			if (total !== undefined && nextOffset >= total + applied) {
				throw await fail(
					`the API kept answering hasMore: true past its own total of ${total} items`,
					`The reply for offset ${offset} says more items follow, but total (${total}) says the list ended. The read stopped after ${requests} requests instead of looping; ${items.length} items had arrived. This is an inconsistency in the API.`,
				);
			}
			if (
				pagesWithoutProgress >= MAX_PAGES_WITHOUT_PROGRESS ||
				(total === undefined && requests >= MAX_PAGES_WITHOUT_TOTAL)
			) {
				throw await fail(
					`the API kept answering hasMore: true without new items`,
					`${requests} pages were read (${items.length} items); the last ${pagesWithoutProgress} brought nothing new${total === undefined ? ' and no total was given' : `, although total says ${total}`}. The read stopped instead of looping.`,
				);
			}

			const usableTotal = total !== undefined && Number.isSafeInteger(total) && total >= 0;
			if (plan && (page.items.length < applied || !usableTotal || total < plan.end)) {
				// The list is not what the first total said: no more reading ahead.
				plan = undefined;
			}
			if (!planned && inFlight > 1 && request.limit !== undefined && usableTotal) {
				planned = true;
				const wantedEnd = nextOffset + (read.wanted - items.length);
				// The loop asks for nextOffset itself; the pages after it are read ahead.
				const end = Math.min(total, wantedEnd);
				plan = { next: nextOffset + applied, step: applied, end, wantedEnd };
			}
			offset = nextOffset;
			paged = true;
		}
	} finally {
		await settle();
	}
}
