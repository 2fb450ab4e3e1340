/**
 * Promises that the broader suites run past without being able to break them: each test here
 * fails when the one line that keeps the promise is changed (see test/mutation/).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Workflow, type INode } from 'n8n-workflow';
import { BusinessCrm } from '../nodes/BusinessCrm/BusinessCrm.node';
import { BusinessCrmApi } from '../credentials/BusinessCrmApi.credentials';
import { listBusinesses, runNode, type CrmCredentials } from './helpers/harness.cjs';
import { byId } from './helpers/fixtures.cjs';
import { startSandbox } from './sandbox/server.cjs';
import { checkCredential } from '../nodes/BusinessCrm/credential/credential';

// Only this test's own API accepts it.
const KEY = ['test', 'key', '0123456789'].join('-');
const ORGANIZATION_ID = 'org_1';

/** A small API on 127.0.0.1 whose answers the test writes; it records every request's URL. */
async function startApi(
	answer: (request: IncomingMessage, url: URL, response: ServerResponse) => void | Promise<void>,
): Promise<{ server: Server; credentials: CrmCredentials; urls: URL[] }> {
	const urls: URL[] = [];
	const server = createServer((request, response) => {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		urls.push(url);
		void answer(request, url, response);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		server,
		urls,
		credentials: {
			baseUrl: `http://127.0.0.1:${port}`,
			apiKey: KEY,
			organizationId: ORGANIZATION_ID,
		},
	};
}

function json(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

async function stop(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
}

const getMany = (resource: string) => ({ resource, operation: 'getAll', returnAll: true });

describe('never more than 10 requests in flight', () => {
	it('with 50 items, at most 10 requests are open at once, and every item is answered', async () => {
		let open = 0;
		let mostOpen = 0;
		const api = await startApi(async (_request, url, response) => {
			open++;
			mostOpen = Math.max(mostOpen, open);
			// Long enough that, without the limit, all 50 requests would be open together.
			await new Promise((resolve) => setTimeout(resolve, 100));
			open--;
			json(response, 200, { content: { business: { id: url.pathname.split('/').pop() } } });
		});
		try {
			const items = Array.from({ length: 50 }, (_, index) => ({ id: `biz_${index}` }));
			const { items: output, error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('={{ $json.id }}') },
				credentials: api.credentials,
				items,
			});
			expect(error).toBeUndefined();
			expect(output.map((item) => item.json.id)).toEqual(items.map((item) => item.id));
			expect(api.urls).toHaveLength(50);
			expect(mostOpen).toBe(10);
		} finally {
			await stop(api.server);
		}
	});
});

describe('a Base URL typed without a scheme is sent as https', () => {
	it('the credential the requests use starts with https://', () => {
		expect(
			checkCredential({ baseUrl: 'api.example.com/', apiKey: KEY, organizationId: 'o' }),
		).toMatchObject({ baseUrl: 'https://api.example.com' });
	});

	it('so an API that speaks only http never receives the request', async () => {
		const api = await startApi((_request, _url, response) => json(response, 200, {}));
		try {
			const { error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
				credentials: {
					...api.credentials,
					baseUrl: api.credentials.baseUrl.replace('http://', ''),
				},
			});
			expect(error).toBeDefined();
			expect(api.urls).toEqual([]);
		} finally {
			await stop(api.server);
		}
	});
});

describe('a 3xx reply is an error, not data', () => {
	it.each([300, 302, 308])(
		'%i with a JSON body: the item fails, nothing is output',
		async (status) => {
			const api = await startApi((_request, _url, response) =>
				json(response, status, { content: { business: { id: 'biz_from_3xx' } } }),
			);
			try {
				const { items, error } = await runNode({
					parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
					credentials: api.credentials,
				});
				expect(items).toEqual([]);
				expect(error?.message).toBe(
					`Get business failed: the Business CRM API answered with HTTP ${status}`,
				);
				expect(api.urls).toHaveLength(1);
			} finally {
				await stop(api.server);
			}
		},
	);
});

describe('a business list without pagination.limit', () => {
	/** 130 businesses in pages of 20 unless a limit is sent; pagination has no limit field. */
	const businesses = Array.from({ length: 130 }, (_, index) => ({
		id: `biz_${String(index).padStart(3, '0')}`,
		name: `Business ${index}`,
	}));
	const answer = (_request: IncomingMessage, url: URL, response: ServerResponse) => {
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

	it('steps by the length of the first page less the business it repeats, so none is skipped (Get Many)', async () => {
		const api = await startApi(answer);
		try {
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
		} finally {
			await stop(api.server);
		}
	});

	it('and the business list search reads past 100 businesses', async () => {
		const api = await startApi(answer);
		try {
			const { results } = await listBusinesses(api.credentials);
			expect(results.map((result) => result.value)).toEqual(businesses.map((b) => b.id));
		} finally {
			await stop(api.server);
		}
	});
});

describe('a list without a total is read to its end', () => {
	it('1,500 customers in 16 pages that overlap by one, none of which says how many there are', async () => {
		const customers = Array.from({ length: 1500 }, (_, index) => ({ id: `cust_${index}` }));
		const api = await startApi((_request, url, response) => {
			const offset = Number(url.searchParams.get('offset'));
			const limit = Number(url.searchParams.get('limit'));
			json(response, 200, {
				content: {
					customers: customers.slice(offset, offset + limit),
					pagination: { limit, offset, hasMore: offset + limit < customers.length },
				},
			});
		});
		try {
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
		} finally {
			await stop(api.server);
		}
	});
});

describe('business ids', () => {
	it('a number from an expression is a business id like any other', async () => {
		const sandbox = await startSandbox({ businesses: 1 });
		try {
			const { error } = await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('={{ 42 }}') },
				credentials: {
					baseUrl: sandbox.url,
					apiKey: sandbox.apiKey,
					organizationId: sandbox.organizationId,
				},
			});
			expect(sandbox.requests.map((request) => request.path)).toEqual(['/api/business/42']);
			expect(error?.message).toBe(
				'Get business failed: the Business CRM API answered 404 "Not Found: Business 42 not found"',
			);
		} finally {
			await sandbox.close();
		}
	});
});

describe('an error reply without the usual words is still explained', () => {
	const getWith = async (status: number, body: unknown) => {
		const api = await startApi((_request, _url, response) => json(response, status, body));
		try {
			return await runNode({
				parameters: { resource: 'business', operation: 'get', businessId: byId('biz_1') },
				credentials: api.credentials,
			});
		} finally {
			await stop(api.server);
		}
	};

	it('a 4xx the node has no hint for, with a list as body: the status alone', async () => {
		const { items, error } = await getWith(418, ['teapot']);
		expect(items).toEqual([]);
		expect(error?.message).toBe('Get business failed: the Business CRM API answered 418');
		expect((error as { httpCode?: string } | undefined)?.httpCode).toBe('418');
		// No hint to give, and no server error to blame: no description at all.
		expect(error?.description).toBeNull();
	});

	it('a 500 whose message is not text: the err it gave, and that the server failed', async () => {
		const { error } = await getWith(500, { message: 42, err: ' disk full ' });
		expect(error?.message).toBe(
			'Get business failed: the Business CRM API answered 500 "disk full"',
		);
		expect(error?.description).toBe('The API had a server error.');
	});
});

describe('Return All from an expression', () => {
	it('anything but true or false is refused, not guessed', async () => {
		const api = await startApi((_request, _url, response) => json(response, 200, {}));
		try {
			const { error } = await runNode({
				parameters: { resource: 'customer', operation: 'getAll', returnAll: '={{ "yes" }}' },
				credentials: api.credentials,
			});
			expect(error?.message).toBe('Return All must be true or false, not "yes"');
			expect(api.urls).toEqual([]);
		} finally {
			await stop(api.server);
		}
	});
});

describe("the credential's own trimming", () => {
	it('the headers it makes carry the key and organization ID without the pasted spaces', () => {
		const credential = new BusinessCrmApi();
		const node: INode = {
			id: 'crm',
			name: 'CRM',
			type: 'n8n-nodes-business-crm.businessCrm',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: {
				getByName: () => new BusinessCrm(),
				getByNameAndVersion: () => new BusinessCrm(),
				getKnownTypes: () => ({}),
			},
		});
		// As n8n's CredentialsHelper resolves generic authentication, before any HTTP client sees it.
		const headers = Object.fromEntries(
			Object.entries(credential.authenticate.properties.headers ?? {}).map(([name, value]) => [
				name,
				workflow.expression.getSimpleParameterValue(
					node,
					value as string,
					'internal',
					{ $credentials: { apiKey: `  ${KEY}\t`, organizationId: ' org_1 \n' } },
					undefined,
					'',
				),
			]),
		);
		expect(headers).toEqual({ 'X-API-Key': KEY, 'X-Organization-ID': 'org_1' });
	});
});

describe('Find reads the customer list as JSON, each customer once', () => {
	it('a customer that moves onto the next page while the list is read is found once', async () => {
		const ann = { id: 'cust_1', email: 'ann@example.com' };
		const bob = { id: 'cust_2', email: 'bob@example.com' };
		const cara = { id: 'cust_3', email: 'cara@example.com' };
		const dan = { id: 'cust_4', email: 'dan@example.com' };
		const list = [bob, ann, dan];
		const accepts: Array<string | undefined> = [];
		const api = await startApi((request, url, response) => {
			accepts.push(request.headers.accept);
			// Pages of at most 2 customers, from the offset asked for.
			const offset = Number(url.searchParams.get('offset') ?? 0);
			const customers = list.slice(offset, offset + 2);
			json(response, 200, {
				message: 'ok',
				content: {
					customers,
					pagination: {
						total: list.length,
						limit: 2,
						offset,
						hasMore: offset + customers.length < list.length,
					},
				},
			});
			// A customer added at the front of the list after the first page pushes Ann on: the next
			// page begins with Bob, not with Ann, so that read is made again.
			if (accepts.length === 1) list.unshift(cara);
		});
		try {
			const { items, error } = await runNode({
				parameters: {
					resource: 'customer',
					operation: 'find',
					findBy: 'email',
					email: 'ann@example.com',
				},
				credentials: api.credentials,
			});
			expect(error).toBeUndefined();
			// The read that saw the list move (0, 1, 2), then one whose pages join up: 0, then 1 and 2
			// at once (the total is known), where Ann is on both pages.
			const offsets = api.urls.map((url) => Number(url.searchParams.get('offset')));
			expect(offsets.slice(0, 4)).toEqual([0, 1, 2, 0]);
			expect(offsets.slice(4).sort((a, b) => a - b)).toEqual([1, 2]);
			expect(items.map((item) => item.json)).toEqual([ann]);
			expect(accepts).toEqual(Array.from({ length: 6 }, () => 'application/json'));
		} finally {
			await stop(api.server);
		}
	});
});
