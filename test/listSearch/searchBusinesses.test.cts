/**
 * The Business locator's list (From list): what name each business is shown by, and what a
 * search finds. The API does not document a business's fields, so the list reads the likely ones.
 */
import { startSandbox, type Sandbox, type SandboxBusiness } from '../sandbox/server.cjs';
import { listBusinesses } from '../helpers/harness.cjs';
import { credentialsFor } from '../helpers/fixtures.cjs';
import { LIST_SEARCH_TIMEOUT_MS } from '../../nodes/BusinessCrm/api/requestSettings';

describe('Business list search: names and search', () => {
	let sandbox: Sandbox;
	let originals: SandboxBusiness[];
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 5 });
		originals = sandbox.businesses.map((business) => ({ ...business }));
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		// In place: the sandbox serves this array.
		sandbox.businesses.splice(
			0,
			sandbox.businesses.length,
			...originals.map((business) => ({ ...business })),
		);
	});

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

describe('timeouts', () => {
	// By its value: a behavioural test would wait 30 s (test/api/one-road.test.cts waits them on a
	// fast clock), and mutation testing leaves module constants alone.
	it('the business list search gives up after 30 s', () => {
		expect(LIST_SEARCH_TIMEOUT_MS).toBe(30_000);
	});
});
