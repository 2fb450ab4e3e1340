/**
 * A field that takes one value and is given none, or a list: the node says which and how to fix
 * it, on the item it came from, and sends nothing for that item. Read as text, a list was "empty"
 * (wrong advice) or its JSON (wrong data); an empty Filters › Business read every business.
 */
import type { INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../sandbox/server.cjs';
import { runNode } from '../helpers/harness.cjs';
import { byId, credentialsFor, requestsTo, useSandbox, createAda } from '../helpers/fixtures.cjs';
import { PICK_A_FIELD } from '../../nodes/BusinessCrm/params/parameters';
import { EMPTY_FILTER, EMPTY_FILTER_HELP } from '../../nodes/BusinessCrm/resources/customer/getAll';

const CUSTOMERS = '/api/public/v1/customers';
const ADD = '/api/business/crm/customer/add';

const listHelp = (label: string, expression: string) =>
	`${label} takes one value, and the expression gave a list. Pick one value, for example the first with {{ ${expression}[0] }}, or split the list into items first (Split Out node) to handle each value.`;

describe('one value where one value is expected', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 3 }, { customers: 30 }, (started) => (sandbox = started));

	const business = () => sandbox.businesses[0].id;
	const run = (parameters: INodeParameters, items: Array<Record<string, unknown>>) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters,
			items: items as never,
			onError: 'continueRegularOutput',
		});
	const create = (extra: INodeParameters): INodeParameters => createAda(business(), extra);
	/** The json of a Continue On Fail error item. */
	const failed = (message: string, description: string) => ({
		error: `${message}. ${description}`,
		errorType: 'invalidInput',
	});

	describe('a list is refused in words that say it is a list, and nothing is sent', () => {
		it.each([
			['First Name', { firstName: '={{ $json.names }}' }],
			['Last Name', { lastName: '={{ $json.names }}' }],
			['Business', { businessId: byId('={{ $json.names }}') }],
			['Email', { additionalFields: { email: '={{ $json.names }}' } }],
			['Phone', { additionalFields: { phone: '={{ $json.names }}' } }],
		] as Array<[string, INodeParameters]>)('Create › %s', async (label, extra) => {
			const { items } = await run(create(extra), [{ names: ['Ada', 'Augusta'] }]);
			expect(items).toEqual([
				{
					json: failed(
						`${label} is a list of 2 values, not one value`,
						listHelp(label, '$json.names'),
					),
					pairedItem: { item: 0 },
				},
			]);
			expect(requestsTo(sandbox, ADD)).toEqual([]);
		});

		it.each([
			['Email', { findBy: 'email', email: '={{ $json.names }}' }],
			['Phone', { findBy: 'phone', phone: '={{ $json.names }}' }],
			['First Name', { findBy: 'name', firstName: '={{ $json.names }}', lastName: 'Lovelace' }],
			['Last Name', { findBy: 'name', firstName: 'Ada', lastName: '={{ $json.names }}' }],
		])('Find › %s', async (label, extra) => {
			const { items } = await run({ resource: 'customer', operation: 'find', ...extra }, [
				{ names: ['ada@example.com'] },
			]);
			expect(items).toEqual([
				{
					json: failed(
						`${label} is a list of 1 value, not one value`,
						listHelp(label, '$json.names'),
					),
					pairedItem: { item: 0 },
				},
			]);
			expect(sandbox.requests).toEqual([]);
		});

		it("with Skip Existing, an existing customer's email in a list creates no second customer", async () => {
			const known = sandbox.customers.find((c) => c.businessId === business() && c.email)!;
			const { items } = await run(
				create({
					additionalFields: { email: '={{ $json.emails }}' },
					skipExisting: true,
					matchOn: 'email',
				}),
				[{ emails: [known.email] }],
			);
			expect(items[0].json.error).toMatch(/^Email is a list of 1 value, not one value\. /);
			expect(requestsTo(sandbox, ADD)).toEqual([]);
			expect(sandbox.customers.filter((c) => c.email === known.email)).toHaveLength(1);
		});

		it('Get Many › Filters › Business given a list reads nothing', async () => {
			const { items } = await run(
				{
					resource: 'customer',
					operation: 'getAll',
					returnAll: true,
					filters: { businessId: byId('={{ $json.ids }}') },
				},
				[{ ids: [business(), sandbox.businesses[1].id] }],
			);
			expect(items).toEqual([
				{
					json: failed(
						'Filters › Business is a list of 2 values, not one value',
						listHelp('Filters › Business', '$json.ids'),
					),
					pairedItem: { item: 0 },
				},
			]);
			expect(sandbox.requests).toEqual([]);
		});

		it('an object is refused as an object, with the field to pick', async () => {
			const { items } = await run(
				create({ additionalFields: { email: '={{ $json.customer }}' } }),
				[{ customer: { email: 'ada@example.com' } }],
			);
			expect(items[0].json).toEqual(
				failed(
					'Email is an object, not one value',
					`Email takes one value, and the expression gave an object ({{ $json.customer }}). ${PICK_A_FIELD}`,
				),
			);
			expect(requestsTo(sandbox, ADD)).toEqual([]);
		});

		it('a typed list (no expression) is told to pick one value too', async () => {
			const { items } = await run(create({ firstName: ['Ada', 'Augusta'] as never }), [{}]);
			expect(items[0].json.error).toBe(
				'First Name is a list of 2 values, not one value. First Name takes one value, and the expression gave a list. Pick one value, for example the first with adding [0] to the expression, or split the list into items first (Split Out node) to handle each value.',
			);
		});
	});

	describe('Get Many › Filters › Business that gives no ID never reads every business', () => {
		const getMany = (filterValue: unknown): INodeParameters => ({
			resource: 'customer',
			operation: 'getAll',
			returnAll: true,
			filters:
				filterValue === undefined
					? {}
					: { businessId: filterValue as INodeParameters['businessId'] },
		});

		it.each([
			['added but not picked', { __rl: true, mode: 'list', value: '' }],
			['By ID, only spaces', byId('   ')],
			['By ID, an expression on a field the row does not have', byId('={{ $json.businessId }}')],
		])('%s: an error that names the filter, no request', async (_title, value) => {
			const { items } = await run(getMany(value), [{ name: 'a row without businessId' }]);
			expect(items).toEqual([
				{ json: failed(EMPTY_FILTER, EMPTY_FILTER_HELP), pairedItem: { item: 0 } },
			]);
			expect(sandbox.requests).toEqual([]);
		});

		it('without the filter, every business is read as before', async () => {
			const { items } = await run(getMany(undefined), [{}]);
			expect(new Set(items.map((item) => item.json.businessId)).size).toBe(3);
			expect(requestsTo(sandbox, CUSTOMERS).length).toBeGreaterThan(0);
		});

		it('only the item without an ID fails; the others read their business', async () => {
			const { items } = await run(getMany(byId('={{ $json.businessId }}')), [
				{ businessId: business() },
				{},
			]);
			const ok = items.filter((item) => !('error' in item.json));
			expect(ok.length).toBeGreaterThan(0);
			expect(ok.every((item) => item.json.businessId === business())).toBe(true);
			expect(ok.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
			expect(items.filter((item) => 'error' in item.json)).toEqual([
				{ json: failed(EMPTY_FILTER, EMPTY_FILTER_HELP), pairedItem: { item: 1 } },
			]);
		});
	});
});
