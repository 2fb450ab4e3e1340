/**
 * Parallel page reads (Options › Pages Read at Once) against the sandbox over real HTTP: how many
 * pages are in flight, measured at the server; items in list order and each once when pages answer
 * out of order, after a 429, and while the list grows or shrinks; page after page without a total;
 * offsets that never go backwards; and the runaway bound for pages smaller than 100.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { runNode, listBusinesses } from '../helpers/harness.cjs';
import { credentialsFor, failed, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { TriggerHarness } from '../helpers/poll-harness.cjs';
import { DEFAULT_PAGES_IN_PARALLEL, SKIP_OR_REPEAT } from '../../nodes/BusinessCrm/api/lists';
import { PAST_TOTAL } from '../../nodes/BusinessCrm/api/listReader';
import { json, withApi, type Answer, type ScriptedApi } from '../helpers/scripted-api.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const BUSINESS_LIST = '/api/business/list/all';

let sandbox: Sandbox;
useSandbox({ businesses: 3 }, {}, (started) => (sandbox = started));

const getCustomers = (options: INodeParameters = {}, items?: IDataObject[]) =>
	runNode({
		credentials: credentialsFor(sandbox),
		parameters: { resource: 'customer', operation: 'getAll', returnAll: true, options },
		items,
	});

/** The message of a read whose replies say more customers follow past their own total. */
const pastTotal = (total: number) =>
	failed('Get many customers', `${PAST_TOTAL} ${total} customers`);
const ids = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.id);
const offsets = () => requestsTo(sandbox, CUSTOMERS).map((request) => Number(request.query.offset));
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
/** Pages of 100 overlap by one item (each begins with the last of the page before): step 99. */
const pageOffsets = (count: number, step = 99, from = 0) =>
	Array.from({ length: count }, (_, page) => from + page * step);

describe('pages in flight, counted at the server', () => {
	// 100 ms per page: long enough that every page asked for at once is still open when the
	// last of them arrives, even on a busy machine. Pages of 100 overlap by one customer: 2,100
	// customers are max(1, ceil(2,099/99)) = 22 pages, 0, 99, …, 2,079.
	it.each<[string, number | string | undefined, number, number, number]>([
		['Pages Read at Once 1: never more in flight, and that many are reached', 1, 2_100, 1, 1],
		['Pages Read at Once 3: never more in flight, and that many are reached', 3, 2_100, 1, 3],
		[
			`Pages Read at Once ${DEFAULT_PAGES_IN_PARALLEL}: never more in flight, and that many are reached`,
			DEFAULT_PAGES_IN_PARALLEL,
			2_100,
			1,
			DEFAULT_PAGES_IN_PARALLEL,
		],
		[
			'the default is used when the option is not set',
			undefined,
			2_100,
			1,
			DEFAULT_PAGES_IN_PARALLEL,
		],
		['two input items share the run gate of 10 requests', 10, 2_100, 2, 10],
		['takes a number given as text by an expression', '={{ "2" }}', 450, 1, 2],
	])('%s', async (_title, pagesInParallel, customers, inputItems, inFlight) => {
		sandbox.seedCustomers(customers);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 100 } });
		const perItem = <T,>(values: T[]) => Array.from({ length: inputItems }, () => values).flat();
		const { items, error } = await getCustomers(
			pagesInParallel === undefined ? {} : { pagesInParallel },
			perItem([{}]),
		);
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(perItem(sandbox.customers.map((c) => c.id)));
		expect(sandbox.maxInFlight).toBe(inFlight);
		expect(ascending(offsets())).toEqual(
			ascending(perItem(pageOffsets(Math.ceil((customers - 1) / 99)))),
		);
	});

	it('1 is page after page: each request is sent after the one before was answered', async () => {
		sandbox.seedCustomers(500);
		const answeredBefore: boolean[] = [];
		sandbox.onRequest = () => {
			answeredBefore.push(sandbox.requests.slice(0, -1).every((request) => request.status !== 0));
		};
		const { items } = await getCustomers({ pagesInParallel: 1 });
		expect(items).toHaveLength(500);
		expect(offsets()).toEqual(pageOffsets(6));
		expect(answeredBefore).toEqual([true, true, true, true, true, true]);
	});
});

describe('items in list order, each once', () => {
	it('when later pages answer before earlier ones', async () => {
		sandbox.seedCustomers(1_000);
		// Page 99 answers last, page 198 second to last, …: the replies come in reverse order.
		const delayMsByOffset = Object.fromEntries(
			pageOffsets(10, 99, 99).map((offset, index) => [String(offset), 500 - index * 50]),
		);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 0, delayMsByOffset } });
		const { items, error } = await getCustomers({ pagesInParallel: 10 });
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(sandbox.customers.map((c) => c.id));
		expect(ascending(offsets())).toEqual(pageOffsets(11));
		// The 10 pages after the first are all asked for at once.
		expect(sandbox.maxInFlight).toBe(10);
	});

	it('when a middle page gets a 429: only that page is sent again', async () => {
		sandbox.seedCustomers(1_000);
		sandbox.setFaults({
			rateLimitBurst: { path: CUSTOMERS, query: { offset: '495' }, count: 1, retryAfter: 0.2 },
		});
		const { items, error } = await getCustomers({ pagesInParallel: 10 });
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(sandbox.customers.map((c) => c.id));
		const log = requestsTo(sandbox, CUSTOMERS).map((r) => [Number(r.query.offset), r.status]);
		expect(log.filter(([offset]) => offset === 495)).toEqual([
			[495, 429],
			[495, 200],
		]);
		expect(ascending(offsets())).toEqual(ascending([...pageOffsets(11), 495]));
	});

	it('when customers are appended during the read: the rest is read page after page', async () => {
		sandbox.seedCustomers(1_000);
		// Added at the end when the last page of the first total is asked for: no page moves.
		sandbox.onRequest = (entry) => {
			if (entry.path === CUSTOMERS && entry.query.offset === '990') sandbox.addCustomers(250);
		};
		const { items, error } = await getCustomers({ pagesInParallel: 10 });
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(sandbox.customers.map((c) => c.id));
		expect(items).toHaveLength(1_250);
		// ceil(1,249/99) requests; the two past the first total only after page 990 said hasMore.
		const log = offsets();
		expect(ascending(log)).toEqual(pageOffsets(13));
		expect(log.slice(-2)).toEqual([1_089, 1_188]);
	});

	it('when customers are deleted during the read: the read ends where the list ends', async () => {
		sandbox.seedCustomers(1_000);
		// Pages 198 to 990 are answered after page 99 arrived and cut the list to 750. Customers
		// deleted at the end move no page: the pages still join up, and the read is not repeated.
		const delayMsByOffset = Object.fromEntries(
			pageOffsets(9, 99, 198).map((offset) => [String(offset), 200]),
		);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 0, delayMsByOffset } });
		sandbox.onRequest = (entry) => {
			if (entry.path === CUSTOMERS && entry.query.offset === '99') sandbox.customers.length = 750;
		};
		const { items, error } = await getCustomers({ pagesInParallel: 10 });
		expect(error).toBeUndefined();
		// What a read page after page would return now: the 750 left, in order.
		expect(ids(items)).toEqual(sandbox.customers.map((c) => c.id));
		expect(items).toHaveLength(750);
		// Pages already asked for are awaited, never repeated.
		expect(ascending(offsets())).toEqual(pageOffsets(11));
	});

	it('when a page comes back short with hasMore: no more pages are read ahead', async () => {
		// 450 customers while total says 1,000: page 396 is short, pages past it are empty.
		sandbox.seedCustomers(450);
		sandbox.setFaults({
			totalOverride: 1_000,
			hasMoreForever: true,
			slow: { path: CUSTOMERS, delayMs: 50 },
		});
		const alone = new Map<number, boolean>();
		sandbox.onRequest = (entry) => {
			const earlier = sandbox.requests.slice(0, sandbox.requests.indexOf(entry));
			alone.set(
				Number(entry.query.offset),
				earlier.every((request) => request.status !== 0),
			);
		};
		const { error } = await getCustomers({ pagesInParallel: 3 });
		expect(error?.message).toBe(pastTotal(1000));
		// Pages 495 and 594 were already asked for when page 396's reply came (54 customers, so
		// the next page begins with its last at 449); their replies are dropped. The rest is asked
		// for one at a time: 449 brings only that customer again, a page of one that cannot
		// overlap, so 450 follows it; past the list the empty pages step by their limit of 100,
		// until 1,050 is past the total.
		const oneAtATime = [449, 450, ...pageOffsets(6, 100, 550)];
		expect(ascending(offsets())).toEqual(ascending([...pageOffsets(7), ...oneAtATime]));
		expect(oneAtATime.map((offset) => alone.get(offset))).toEqual(oneAtATime.map(() => true));
		expect(alone.get(297)).toBe(false);
	});
});

describe('page after page when the replies do not allow more', () => {
	it('without a total', async () => {
		sandbox.seedCustomers(1_000);
		sandbox.setFaults({ omitTotal: true, slow: { path: CUSTOMERS, delayMs: 30 } });
		const { items, error } = await getCustomers({ pagesInParallel: 10 });
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(sandbox.customers.map((c) => c.id));
		expect(offsets()).toEqual(pageOffsets(11));
		expect(sandbox.maxInFlight).toBe(1);
	});

	it('for a business list: the bare first request, one paged request, then pages at once', async () => {
		const local = await startSandbox({ businesses: 450 });
		try {
			local.setFaults({ slow: { path: BUSINESS_LIST, delayMs: 100 } });
			const { items, error } = await runNode({
				credentials: credentialsFor(local),
				parameters: { resource: 'business', operation: 'getAll', returnAll: true },
			});
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(local.businesses.map((b) => b.id));
			const queries = requestsTo(local, BUSINESS_LIST).map((r) => r.query);
			// The bare first page holds the API's default 20; each page begins with the last item
			// of the page before.
			expect(queries.slice(0, 2)).toEqual([{}, { limit: '100', offset: '19' }]);
			expect(ascending(queries.slice(2).map((q) => Number(q.offset)))).toEqual([
				118, 217, 316, 415,
			]);
			expect(local.maxInFlight).toBe(4);
		} finally {
			await local.close();
		}
	});
});

describe('offsets only grow (a reply for another offset is an error)', () => {
	it.each([
		['a negative offset', -1_000],
		['offset 0 for every page', 0],
		['an offset ahead of the one asked for', 5_000],
	])('%s', async (_title, reported) => {
		sandbox.seedCustomers(250);
		sandbox.setFaults({ offsetOverride: reported });
		const { items, error } = await getCustomers({ pagesInParallel: 1 });
		expect(items).toEqual([]);
		const first = reported === 0 ? 99 : 0;
		expect(error?.message).toBe(
			failed(
				'Get many customers',
				`the API answered for offset ${reported} when offset ${first} was asked for`,
			),
		);
		expect((error as Error & { description?: string }).description).toBe(
			`${SKIP_OR_REPEAT} customers. This is an inconsistency in the API.`,
		);
		const sent = offsets();
		expect(sent.every((offset) => offset >= 0)).toBe(true);
		expect(sent).toEqual(ascending(sent));
		expect(new Set(sent).size).toBe(sent.length);
	});
});

describe('the runaway bound for any page size', () => {
	it.each([
		[10, 50, 1],
		[10, 50, 10],
		[25, 120, 10],
		[100, 120, 10],
	])(
		'pages of %i, a total of %i that hasMore contradicts, %i pages at once: ceil(total/(page-1))+1 requests',
		async (pageSize, total, pages) => {
			sandbox.seedCustomers(300);
			sandbox.setFaults({ pageSizeCap: pageSize, totalOverride: total, hasMoreForever: true });
			const { error } = await getCustomers({ pagesInParallel: pages });
			expect(error?.message).toBe(pastTotal(total));
			// Pages overlap by one: the offset steps by page - 1 until it reaches the total.
			expect(ascending(offsets())).toEqual(
				pageOffsets(Math.ceil(total / (pageSize - 1)) + 1, pageSize - 1),
			);
		},
	);

	it('a server paging by 10 is read whole, in order, in ceil((N-1)/9) requests', async () => {
		sandbox.seedCustomers(250);
		sandbox.setFaults({ pageSizeCap: 10 });
		const { items, error } = await getCustomers({ pagesInParallel: 10 });
		expect(error).toBeUndefined();
		expect(ids(items)).toEqual(sandbox.customers.map((c) => c.id));
		// Pages of 10 overlapping by one: 0, 9, …, 243.
		expect(ascending(offsets())).toEqual(pageOffsets(Math.ceil(249 / 9), 9));
	});
});

describe('Options › Pages Read at Once', () => {
	it.each([0, 11, 2.5, -1, 'many', ''])('refuses %p before anything is sent', async (value) => {
		sandbox.seedCustomers(10);
		const { items, error } = await getCustomers({ pagesInParallel: value });
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`Pages Read at Once must be a whole number from 1 to 10, not ${JSON.stringify(value)}`,
		);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});
});

describe('the trigger', () => {
	it("reads the whole list pages at once on activation, and a poll then reads its tail and one page of the sweep", async () => {
		sandbox.seedCustomers(2_100);
		sandbox.setFaults({ slow: { path: CUSTOMERS, delayMs: 100 } });
		const trigger = new TriggerHarness(credentialsFor(sandbox));
		const outcome = await trigger.activate();
		expect(outcome.error).toBeUndefined();
		// Pages of 100 overlapping by one customer: 0, 99, …, 2,079.
		expect(ascending(offsets())).toEqual(
			Array.from({ length: Math.ceil(2_099 / 99) }, (_, page) => page * 99),
		);
		expect(sandbox.maxInFlight).toBe(DEFAULT_PAGES_IN_PARALLEL);

		sandbox.clearLog();
		const added = sandbox.addCustomers(250);
		const polled = await trigger.poll();
		expect(polled.items).toEqual(added);
		// The sweep's page of the known list, then from the last known customer: 251 customers,
		// max(1, ceil(250/99)) = 3 requests.
		expect(ascending(offsets())).toEqual([0, 2_099, 2_198, 2_297]);
	});
});

const getMany = (resource: string) => ({ resource, operation: 'getAll', returnAll: true });

describe('a business list without pagination.limit', () => {
	/** 130 businesses in pages of 20 unless a limit is sent; pagination has no limit field. */
	const businesses = Array.from({ length: 130 }, (_, index) => ({
		id: `biz_${String(index).padStart(3, '0')}`,
		name: `Business ${index}`,
	}));
	const answer: Answer = (_request, url, response) => {
		const offset = Number(url.searchParams.get('offset') ?? 0);
		const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
		const page = businesses.slice(offset, offset + limit);
		json(response, 200, {
			content: {
				businesses: page,
				pagination: { offset, hasMore: offset + page.length < businesses.length },
			},
		});
	};

	it('steps by the length of the first page less the business it repeats, so none is skipped (Get Many)', async () =>
		await withApi(answer, async (api) => {
			const { items, error } = await runNode({
				parameters: getMany('business'),
				credentials: api.credentials,
			});
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(businesses.map((b) => b.id));
			// 20 businesses, then pages that each begin with the last business of the page before.
			expect(api.urls.map((url) => url.search)).toEqual([
				'',
				'?limit=100&offset=19',
				'?limit=100&offset=118',
			]);
		}));

	it('and the business list search reads past 100 businesses', async () =>
		await withApi(answer, async (api) => {
			const { results } = await listBusinesses(api.credentials);
			expect(results.map((result) => result.value)).toEqual(businesses.map((b) => b.id));
		}));
});

describe('a list without a total is read to its end', () => {
	it('1,500 customers in 16 pages that overlap by one, none of which says how many there are', async () => {
		const customers = Array.from({ length: 1500 }, (_, index) => ({ id: `cust_${index}` }));
		const answer: Answer = (_request, url, response) => {
			const offset = Number(url.searchParams.get('offset'));
			const limit = Number(url.searchParams.get('limit'));
			json(response, 200, {
				content: {
					customers: customers.slice(offset, offset + limit),
					pagination: { limit, offset, hasMore: offset + limit < customers.length },
				},
			});
		};
		await withApi(answer, async (api) => {
			const { items, error } = await runNode({
				parameters: getMany('customer'),
				credentials: api.credentials,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1500);
			// ceil((1,500 - 1) / 99): offsets 0, 99, ..., 1,485.
			expect(api.urls.map((url) => Number(url.searchParams.get('offset')))).toEqual(
				Array.from({ length: 16 }, (_, index) => index * 99),
			);
		});
	});
});

/**
 * An API that pages by one customer (pages that cannot overlap): the first read (one request per
 * customer of `first`) sees `first`, every later request sees `later`.
 */
function pagedByOne(first: Array<{ id: string }>, later: Array<{ id: string }>): Answer {
	let requests = 0;
	return (_request, url, response) => {
		const customers = requests++ < first.length ? first : later;
		const offset = Number(url.searchParams.get('offset'));
		json(response, 200, {
			content: {
				customers: customers.slice(offset, offset + 1),
				pagination: { limit: 1, offset, hasMore: offset + 1 < customers.length },
			},
		});
	};
}

/** Get Many with Return All against `api`: the ids it output. */
async function idsRead(api: ScriptedApi): Promise<unknown[]> {
	const { items, error } = await runNode({
		parameters: getMany('customer'),
		credentials: api.credentials,
	});
	expect(error).toBeUndefined();
	return items.map((item) => item.json.id);
}

describe('a list whose pages cannot overlap is trusted when two reads agree', () => {
	it('an API that pages by one customer is read twice; after the list changed between two reads, twice more', async () => {
		const first = ['cust_a', 'cust_b', 'cust_c'].map((id) => ({ id }));
		// A customer is added at the front once the first read (3 pages) is done.
		const later = [{ id: 'cust_new' }, ...first];
		await withApi(pagedByOne(first, later), async (api) => {
			expect(await idsRead(api)).toEqual(later.map(({ id }) => id));
			// Reads of 3, 4, 4 and 4 pages: the second differs from the first, the fourth agrees.
			expect(api.urls.map((url) => Number(url.searchParams.get('offset')))).toEqual([
				0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
			]);
		});
	});

	it('two reads agree only on the same customers, not on as many: one replaced between them makes two more reads', async () => {
		const first = ['cust_a', 'cust_b', 'cust_c'].map((id) => ({ id }));
		// cust_b is replaced by cust_x once the first read (3 pages) is done.
		const later = [{ id: 'cust_a' }, { id: 'cust_x' }, { id: 'cust_c' }];
		await withApi(pagedByOne(first, later), async (api) => {
			expect(await idsRead(api)).toEqual(later.map(({ id }) => id));
			expect(api.urls).toHaveLength(4 * 3);
		});
	});
});
