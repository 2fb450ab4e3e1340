import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { transportError } from './errors';
import { extractList, recordId } from './output';
import { apiRequest, credentialSecrets, type RetryPolicy } from './transport';

/** The most items the API serves per page (spec section 8). */
export const MAX_PAGE_SIZE = 100;

/** Without a `total` to bound it, a read stops after this many pages (10 million items). */
const MAX_PAGES_WITHOUT_TOTAL = 100_000;
/**
 * Pages in a row that bring no new item before a read is called stuck. The spec allows empty
 * pages, so a few are tolerated; a server that answers hasMore forever is not.
 */
const MAX_PAGES_WITHOUT_PROGRESS = 10;

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
}

function positiveInteger(value: number | undefined): number | undefined {
	return value !== undefined && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Reads a list by the spec's offset pagination: start at offset 0, add the page size after each
 * page, stop when hasMore is false or enough items arrived. Pages of 100 when more are wanted, so
 * N items take ceil(N/100) requests. Written by hand because n8n's built-in offset pagination
 * ignores hasMore (it stops on the first short page and never on hasMore: false).
 *
 * It cannot run away: a reply whose hasMore contradicts its own total, or pages that bring nothing
 * new, end the read with an error; items already seen (offsets shift when records are added during
 * the read) are returned once.
 */
export async function readList(
	ctx: IExecuteSingleFunctions | ILoadOptionsFunctions | IPollFunctions,
	read: ListRead,
): Promise<IDataObject[]> {
	const items: IDataObject[] = [];
	const seen = new Set<string>();
	let offset = read.startOffset ?? 0;
	let paged = read.pagedFromStart;
	let requests = 0;
	let pagesWithoutProgress = 0;

	const fail = async (message: string, description: string) =>
		transportError(
			ctx,
			`${read.what} failed: ${message}`,
			description,
			await credentialSecrets(ctx),
			read.itemIndex,
		);

	for (;;) {
		const pageSize = Math.min(MAX_PAGE_SIZE, read.wanted - items.length);
		const qs = paged ? { ...read.options.qs, limit: pageSize, offset } : read.options.qs;
		const body = await apiRequest(ctx, {
			what: read.what,
			options: { ...read.options, qs },
			policy: read.policy,
			itemIndex: read.itemIndex,
			listPage: true,
		});
		requests++;

		const page = extractList(body, read.listKeys);
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
		if (!pagination?.hasMore || items.length >= read.wanted) return items;
		const applied = positiveInteger(pagination.limit) ?? (paged ? pageSize : page.items.length);
		const currentOffset = pagination.offset ?? offset;
		const nextOffset = currentOffset + Math.max(applied, 1);

		const total = pagination.total;
		if (total !== undefined && nextOffset >= total + applied) {
			throw await fail(
				`the API kept answering hasMore: true past its own total of ${total} items`,
				`The reply for offset ${currentOffset} says more items follow, but total (${total}) says the list ended. The read stopped after ${requests} requests instead of looping; ${items.length} items had arrived. This is an inconsistency in the API.`,
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
		offset = nextOffset;
		paged = true;
	}
}
