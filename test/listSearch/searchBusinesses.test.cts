/**
 * The Business locator's list (From list): what name each business is shown by, and what a
 * search finds. The API does not document a business's fields, so the list reads the likely ones.
 */
import { type Sandbox, type SandboxBusiness } from '../sandbox/server.cjs';
import { listBusinesses } from '../helpers/harness.cjs';
import { credentialsFor, requestsTo, useSandbox } from '../helpers/fixtures.cjs';
import { startApi, never } from '../helpers/scripted-api.cjs';
import { clock, fastClock } from '../helpers/clock.cjs';
import { LIST_SEARCH_TIMEOUT_MS } from '../../nodes/BusinessCrm/api/requestSettings';
import { BUSINESS_LIST } from '../../nodes/BusinessCrm/api/lists';
import { OPEN_LIST_AGAIN } from '../../nodes/BusinessCrm/api/rateLimit';
import { API_UP_HELP } from '../../nodes/BusinessCrm/api/failures';

const LIST = BUSINESS_LIST.url;
/** Set by the mutation runs' jest config, which cannot afford a 30 s wait per mutant. */
const slowIt = (globalThis as { MUTATION_RUN?: boolean }).MUTATION_RUN ? it.skip : it;

// 45 businesses: more than the API's first page of 20, so that a list takes two requests.
let sandbox: Sandbox;
let originals: SandboxBusiness[];
useSandbox({ businesses: 45 }, {}, (started) => {
	sandbox = started;
	originals = started.businesses.map((business) => ({ ...business }));
});
beforeEach(() => {
	// In place: the sandbox serves this array.
	sandbox.businesses.splice(
		0,
		sandbox.businesses.length,
		...originals.map((business) => ({ ...business })),
	);
	sandbox.setBusinessListShape('paginated');
});

describe('Business list search: names and search', () => {
	/** Gives business `index` exactly these name fields instead of its `name`. */
	const rename = (index: number, fields: Record<string, unknown>) => {
		const business = sandbox.businesses[index] as Record<string, unknown>;
		delete business.name;
		Object.assign(business, fields);
		return sandbox.businesses[index];
	};

	it('shows a business named under businessName, displayName, title or companyName by that name', async () => {
		const named = [
			rename(0, { businessName: 'Northwind Bakery Ltd' }),
			rename(1, { displayName: 'Blue Harbor Dental Care' }),
			rename(2, { title: 'Maple Street Books & Co' }),
			rename(3, { companyName: 'Copperleaf Cycles GmbH' }),
		];
		const { results } = await listBusinesses(credentialsFor(sandbox));
		expect(results.slice(0, 4)).toEqual([
			{ name: 'Northwind Bakery Ltd', value: named[0].id },
			{ name: 'Blue Harbor Dental Care', value: named[1].id },
			{ name: 'Maple Street Books & Co', value: named[2].id },
			{ name: 'Copperleaf Cycles GmbH', value: named[3].id },
		]);
	});

	it('passes over a blank or non-text name to the next field that holds one', async () => {
		const blank = rename(0, { name: '   ', displayName: 'Northwind Bakery' });
		const empty = rename(1, { name: '', title: 'Blue Harbor Dental' });
		const missing = rename(2, { name: null, companyName: 'Maple Street Books' });
		const numbered = rename(3, { name: 42, businessName: 'Copperleaf Cycles' });
		const { results } = await listBusinesses(credentialsFor(sandbox));
		expect(results.slice(0, 4)).toEqual([
			{ name: 'Northwind Bakery', value: blank.id },
			{ name: 'Blue Harbor Dental', value: empty.id },
			{ name: 'Maple Street Books', value: missing.id },
			{ name: 'Copperleaf Cycles', value: numbered.id },
		]);
	});

	it('shows a name without the spaces around it', async () => {
		const padded = rename(0, { name: '  Northwind Bakery \t' });
		const { results } = await listBusinesses(credentialsFor(sandbox));
		expect(results[0]).toEqual({ name: 'Northwind Bakery', value: padded.id });
	});

	it('a search by name does not show businesses that have no name (their ID does not match)', async () => {
		rename(0, {});
		const heritage = rename(1, { name: 'Heritage Bakery' });
		const byName = await listBusinesses(credentialsFor(sandbox), 'her');
		expect(byName.results).toEqual([{ name: 'Heritage Bakery', value: heritage.id }]);
		const nameless = sandbox.businesses[0];
		const byId = await listBusinesses(credentialsFor(sandbox), nameless.id);
		expect(byId.results).toEqual([{ name: nameless.id, value: nameless.id }]);
	});
});

describe('list search (Business locator, From List)', () => {
	it('lists every business with a readable name, reading every page', async () => {
		const { results } = await listBusinesses(credentialsFor(sandbox));
		expect(results).toEqual(sandbox.businesses.map((b) => ({ name: b.name, value: b.id })));
		expect(requestsTo(sandbox, LIST)).toHaveLength(2);
	});

	it('filters by name, case-insensitively', async () => {
		const target = sandbox.businesses[3];
		const { results } = await listBusinesses(credentialsFor(sandbox), target.name.toUpperCase());
		expect(results).toContainEqual({ name: target.name, value: target.id });
		expect(results.every((r) => r.name.toLowerCase().includes(target.name.toLowerCase()))).toBe(
			true,
		);
	});

	it('filters by ID', async () => {
		const target = sandbox.businesses[44];
		const { results } = await listBusinesses(credentialsFor(sandbox), target.id);
		expect(results).toEqual([{ name: target.name, value: target.id }]);
	});

	it('shows the ID beside the name only for businesses that share a name', async () => {
		const [first, second] = sandbox.businesses;
		const ownName = second.name;
		second.name = first.name;
		try {
			const { results } = await listBusinesses(credentialsFor(sandbox));
			expect(results.slice(0, 3)).toEqual([
				{ name: `${first.name} (${first.id})`, value: first.id },
				{ name: `${first.name} (${second.id})`, value: second.id },
				{ name: sandbox.businesses[2].name, value: sandbox.businesses[2].id },
			]);
		} finally {
			second.name = ownName;
		}
	});

	it('labels a business that has no name with its ID', async () => {
		const [first] = sandbox.businesses;
		const ownName = first.name;
		delete (first as { name?: string }).name;
		try {
			const { results } = await listBusinesses(credentialsFor(sandbox));
			expect(results[0]).toEqual({ name: first.id, value: first.id });
		} finally {
			first.name = ownName;
		}
	});

	it('works with an unpaginated array reply too', async () => {
		sandbox.setBusinessListShape('array');
		const { results } = await listBusinesses(credentialsFor(sandbox));
		expect(results).toHaveLength(45);
	});

	it('past the retry bounds of a 429 says to open the list again (no node Options apply here)', async () => {
		sandbox.setFaults({
			rateLimitBurst: { path: '/api/business/list/all', count: 6, retryAfter: 0 },
		});
		try {
			const failure = await listBusinesses(credentialsFor(sandbox)).then(
				() => undefined,
				(error: Error & { description?: string }) => error,
			);
			expect(failure?.message).toMatch(
				/^List businesses failed: the Business CRM API answered 429/,
			);
			expect(failure?.description).toMatch(/Gave up after 5 retries .*\)\. /);
			expect(failure?.description?.endsWith(OPEN_LIST_AGAIN)).toBe(true);
		} finally {
			sandbox.resetFaults();
		}
	});

	// Left out of mutation runs (test/mutation/jest.config.js); test/api/failures.test.cts guards its words.
	slowIt(
		'gives up after 30 s when the API accepts the connection and never answers',
		async () => {
			const silent = await startApi(never);
			// 30 s on the package's clock, run 20 times faster (1.5 s): 100 times faster, a busy
			// machine's 100 ms of scheduling read as 10 s on that clock and broke the bound below.
			const fast = fastClock(20);
			const started = clock.now();
			try {
				const failure = await listBusinesses(silent.credentials).then(
					() => undefined,
					(error: Error & { description?: string }) => error,
				);
				const elapsed = clock.now() - started;
				expect(failure?.message).toBe('List businesses failed: no answer within 30 s');
				expect(failure?.description).toBe(
					`The Business CRM API did not answer within 30 s. ${API_UP_HELP}`,
				);
				expect(elapsed).toBeGreaterThanOrEqual(29_900);
				expect(elapsed).toBeLessThan(40_000);
			} finally {
				fast.restore();
				await silent.close();
			}
		},
		10_000,
	);
});

describe('timeouts', () => {
	// By its value: a behavioural test would wait 30 s (test/api/one-road.test.cts waits them on a
	// fast clock), and mutation testing leaves module constants alone.
	it('the business list search gives up after 30 s', () => {
		expect(LIST_SEARCH_TIMEOUT_MS).toBe(30_000);
	});
});
