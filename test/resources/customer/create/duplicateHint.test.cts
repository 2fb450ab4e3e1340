import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../../../sandbox/server.cjs';
import { runNode } from '../../../helpers/harness.cjs';
import { createAda, credentialsFor, requestsTo, useSandbox } from '../../../helpers/fixtures.cjs';
import {
	EACH_RUN_ADDS_AGAIN,
	NOT_CHECKED_FOR_DUPLICATES,
} from '../../../../nodes/BusinessCrm/resources/customer/create/duplicateHint';

const CUSTOMERS = '/api/public/v1/customers';

describe('Customer › Create: a run from the editor warns of a customer it may have added twice', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 1 }, { customers: 150 }, (started) => (sandbox = started));

	const create = (rows: IDataObject[], extra: INodeParameters = {}, mode?: 'trigger') =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: createAda(sandbox.businesses[0].id, {
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}', phone: '={{ $json.phone }}' },
				...extra,
			}),
			items: rows,
			mode,
		});
	const ada = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.twice@example.com' };

	it('a second click on Execute step adds a second Ada, and the output pane says so, naming both', async () => {
		const first = await create([ada]);
		expect(first.hints).toEqual([]);
		const second = await create([ada]);
		const [one, two] = [first.items[0].json.id, second.items[0].json.id];
		expect(second.hints).toEqual([
			{
				message: `Possible duplicate: row 1 (Ada Lovelace), created as ${String(two)}, has the same email as ${String(one)}. ${EACH_RUN_ADDS_AGAIN}`,
				type: 'warning',
				location: 'outputPane',
			},
		]);
		// The run itself is as before: the customer is created and output.
		expect(second.error).toBeUndefined();
		expect(sandbox.customers.filter((c) => c.email === ada.email)).toHaveLength(2);
	});

	it("compares a customer without email or phone by name, as the README's first customer is", async () => {
		const noEmail = { firstName: 'Grace', lastName: 'Hopper-Twice' };
		const first = await create([noEmail]);
		const second = await create([noEmail]);
		expect(first.hints).toEqual([]);
		expect(second.hints.map((hint) => hint.message)).toEqual([
			`Possible duplicate: row 1 (Grace Hopper-Twice), created as ${String(second.items[0].json.id)}, has the same first and last name as ${String(first.items[0].json.id)}. ${EACH_RUN_ADDS_AGAIN}`,
		]);
	});

	it('names a phone shared with a customer already there, and counts the rows past five', async () => {
		const known = sandbox.customers.filter((c) => c.email).slice(0, 7);
		const rows = known.map((c, n) => ({
			firstName: `Twin${n + 1}`,
			lastName: 'Row',
			...(n === 0 ? { phone: String(c.phone) } : { email: String(c.email) }),
		}));
		const { hints } = await create(rows);
		expect(hints).toHaveLength(1);
		expect(hints[0].message).toMatch(
			new RegExp(
				`^Possible duplicates: row 1 \\(Twin1 Row\\), created as cust_\\w+, has the same phone as ${known[0].id}; row 2 `,
			),
		);
		expect(hints[0].message).toContain(`(and 2 more). ${EACH_RUN_ADDS_AGAIN}`);
	});

	it('reads the list once for the check, and not at all in a production run', async () => {
		const manual = await create([{ ...ada, email: 'once@example.com' }]);
		expect(manual.hints).toEqual([]);
		expect(requestsTo(sandbox, CUSTOMERS).length).toBeGreaterThan(0);
		sandbox.clearLog();
		const production = await create([ada], {}, 'trigger');
		expect(production.hints).toEqual([]);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('gives no warning for rows Skip Existing checked', async () => {
		await create([ada]);
		const { hints, items } = await create([ada], { skipExisting: true, matchOn: 'email' });
		expect(hints).toEqual([]);
		expect((items[0].json._skipExisting as IDataObject).outcome).toBe('alreadyExists');
	});

	it('a list that cannot be read keeps the run and its customers, and says the check was not made', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 503 } });
		const { hints, error, items } = await create([ada], { options: { maxRetries: 0 } });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(hints).toHaveLength(1);
		expect(hints[0].message).toMatch(
			new RegExp(`^${NOT_CHECKED_FOR_DUPLICATES}: Read the customer list failed`),
		);
		expect(hints[0].type).toBe('warning');
	});
});
