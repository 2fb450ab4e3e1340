import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../../../sandbox/server.cjs';
import { runChain, runNode, runToolCall } from '../../../helpers/harness.cjs';
import { createAda, credentialsFor, requestsTo, useSandbox } from '../../../helpers/fixtures.cjs';
import {
	NOT_LOOKED_UP,
	previewResult,
} from '../../../../nodes/BusinessCrm/resources/customer/create/preview';
import {
	NO_MATCH_VALUE_CHOICES,
	NO_MATCH_VALUE_TO_ERROR_OUTPUT,
} from '../../../../nodes/BusinessCrm/resources/customer/create/skipExisting';
import { SKIP_MARK as MARK } from '../../../../nodes/BusinessCrm/resources/customer/create/mark';

const ADD = '/api/business/crm/customer/add';
const CUSTOMERS = '/api/public/v1/customers';

describe('Customer › Create › Preview Only (Write Nothing)', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 150 }, (started) => (sandbox = started));

	const business = () => sandbox.businesses[0].id;
	const known = () => sandbox.customers.filter((c) => c.businessId === business() && c.email);

	const importRows = (
		rows: IDataObject[],
		extra: INodeParameters = {},
		onError?: 'continueRegularOutput' | 'continueErrorOutput',
	) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: createAda(business(), {
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}' },
				skipExisting: true,
				matchOn: 'email',
				...extra,
			}),
			items: rows,
			onError,
		});

	/** A sheet with every outcome: new, known, known twice, repeated within it, refused. */
	const sheet = (): IDataObject[] => {
		const [one, twin] = known();
		// Two customers of the business with one email: "several customers match".
		twin.email = String(one.email).toUpperCase();
		return [
			{ firstName: 'New', lastName: 'Person', email: 'new.person@example.com' },
			{ firstName: 'Known', lastName: 'One', email: String(known()[5].email) },
			{ firstName: 'Twin', lastName: 'Match', email: String(one.email) },
			{ firstName: 'New', lastName: 'Again', email: 'NEW.PERSON@example.com' },
			{ firstName: 'Edsger', lastName: 'Dijkstra' },
			{ firstName: '   ', lastName: 'Blank', email: 'blank@example.com' },
			{ firstName: 'Listed', lastName: 'Twice', email: ['a@example.com', 'b@example.com'] },
		];
	};
	const outcomeOf = (item: { json: IDataObject }) =>
		item.json.error === undefined ? (item.json[MARK] as IDataObject).outcome : 'refused';

	it('says what would happen to each row, with one list read and no Create', async () => {
		const rows = sheet();
		const { items, error } = await importRows(rows, { previewOnly: true });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual(rows.map((_, item) => ({ item })));
		expect(items.map(outcomeOf)).toEqual([
			'created',
			'alreadyExists',
			'alreadyExists',
			'alreadyExists',
			'refused',
			'refused',
			'refused',
		]);
		const marks = items.map((item) => item.json[MARK] as IDataObject);
		expect(marks.every((mark) => mark.preview === true && mark.created === false)).toBe(true);
		expect(items[0].json).toEqual({
			id: null,
			businessId: business(),
			firstName: 'New',
			lastName: 'Person',
			email: 'new.person@example.com',
			[MARK]: {
				skipped: false,
				created: false,
				outcome: 'created',
				result: previewResult('created', 'email'),
				matchOn: 'email',
				preview: true,
			},
		});
		expect(items[1].json.id).toBe(known()[5].id);
		expect(marks[1].result).toBe(
			'Would not be created: a customer with this email is already in the CRM',
		);
		expect(marks[2]).toMatchObject({ skipped: true, matches: 2 });
		expect(marks[2].result).toBe(previewResult('alreadyExists', 'email', { matches: 2 }));
		expect(marks[3]).toMatchObject({ skipped: true, earlierRow: 'row 1 (New Person)' });
		expect(items[3].json.id).toBeNull();
		expect(marks[4]).toEqual({
			skipped: false,
			created: false,
			outcome: 'refused',
			result:
				'Would stop with an error: Email is empty, so the node cannot tell whether this customer already exists',
			matchOn: 'email',
			preview: true,
			error: `Row 5 (Edsger Dijkstra): Email is empty, so the node cannot tell whether this customer already exists. Give this row an email. ${NO_MATCH_VALUE_TO_ERROR_OUTPUT} ${NO_MATCH_VALUE_CHOICES}`,
		});
		// A row refused after its fields were read keeps them; one refused while reading has none.
		expect(items[4].json).toMatchObject({ id: null, firstName: 'Edsger', lastName: 'Dijkstra' });
		expect(Object.keys(items[5].json)).toEqual(['id', MARK]);
		expect(marks[5].error).toMatch(/^Row 6 \(Blank\): First Name is empty or only spaces\. /);
		expect(marks[6].error).toMatch(
			/^Row 7 \(Listed Twice\): Email is a list of 2 values, not one value\. /,
		);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(2);
	});

	it.each(['continueRegularOutput', 'continueErrorOutput'] as const)(
		'with On Error %s gives the outcomes, and a refused row the very item, output and words the real run gives, row for row',
		async (onError) => {
			const rows = sheet();
			const preview = await importRows(rows, { previewOnly: true }, onError);
			sandbox.clearLog();
			const real = await importRows(rows, {}, onError);
			expect(real.items.map(outcomeOf)).toEqual(preview.items.map(outcomeOf));
			// Refused rows: on the error output (or as error items), the same json, the same pairing.
			const refusedOf = (run: typeof real) =>
				[...run.items, ...run.errorItems]
					.filter((item) => item.json.error !== undefined)
					.map((item) => ({ json: item.json, pairedItem: item.pairedItem }));
			expect(refusedOf(preview)).toEqual(refusedOf(real));
			expect(refusedOf(real)).toHaveLength(3);
			expect(preview.errorItems).toHaveLength(onError === 'continueErrorOutput' ? 3 : 0);
			// The matched customers are the same ones.
			expect(real.items.slice(1, 3).map((item) => item.json.id)).toEqual(
				preview.items.slice(1, 3).map((item) => item.json.id),
			);
			expect(requestsTo(sandbox, ADD)).toHaveLength(1);
		},
	);

	it('a preview after the import finds every row the import created', async () => {
		const rows = sheet().slice(0, 4);
		await importRows(rows);
		const { items } = await importRows(rows, { previewOnly: true });
		expect(items.map(outcomeOf)).toEqual([
			'alreadyExists',
			'alreadyExists',
			'alreadyExists',
			'alreadyExists',
		]);
	});

	it('Output the Row Without Creating It and Create the Customer Anyway are previewed too', async () => {
		const rows = [{ firstName: 'No', lastName: 'Mail' }];
		for (const [noMatchValue, outcome] of [
			['skip', 'notCreatedNoMatchValue'],
			['create', 'createdNoMatchValue'],
		] as const) {
			const { items } = await importRows(rows, { previewOnly: true, noMatchValue });
			expect(items[0].json).toMatchObject({
				id: null,
				firstName: 'No',
				[MARK]: { outcome, created: false, preview: true, result: previewResult(outcome, 'email') },
			});
		}
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});

	it('answers an AI agent\'s "what would this import do?" as one tool call', async () => {
		const [item] = await runToolCall({
			credentials: credentialsFor(sandbox),
			parameters: createAda(business(), {
				firstName: 'Known',
				lastName: 'One',
				additionalFields: { email: String(known()[7].email) },
				skipExisting: true,
				matchOn: 'email',
				previewOnly: true,
			}),
		});
		expect(item.json[MARK]).toMatchObject({ outcome: 'alreadyExists', preview: true });
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});

	it('a list that cannot be read fails the preview, as it would the import', async () => {
		sandbox.setFaults({ serverError: { path: CUSTOMERS, status: 503 } });
		const { error } = await importRows(sheet().slice(0, 2), {
			previewOnly: true,
			options: { maxRetries: 0 },
		});
		expect(error?.message).toMatch(/^Row 1 \(New Person\): Read the customer list failed/);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
	});
	it('writes nothing when an expression turns Skip Existing off for a row, and predicts what the real run does with it', async () => {
		const email = 'mixed.rows@example.com';
		const rows = [
			{ firstName: 'Off', lastName: 'One', email, skip: false },
			{ firstName: 'On', lastName: 'Two', email, skip: true },
			{ firstName: 'Off', lastName: 'Three', email: 'other@example.com', skip: false },
		];
		const settings = { skipExisting: '={{ $json.skip }}', previewOnly: true };
		const preview = await importRows(rows, settings);
		expect(preview.error).toBeUndefined();
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		const marks = preview.items.map((item) => item.json[MARK] as IDataObject);
		expect(marks[0]).toEqual({
			skipped: false,
			created: false,
			outcome: 'created',
			result: NOT_LOOKED_UP,
			preview: true,
		});
		expect(marks[1]).toMatchObject({ outcome: 'alreadyExists', earlierRow: 'row 1 (Off One)' });
		expect(marks[2].result).toBe(NOT_LOOKED_UP);

		// The real run: the row with Skip Existing on waits for the Create of the row before it.
		const real = await importRows(rows, { skipExisting: '={{ $json.skip }}' });
		expect(requestsTo(sandbox, ADD)).toHaveLength(2);
		expect(sandbox.customers.filter((c) => c.email === email)).toHaveLength(1);
		expect((real.items[1].json[MARK] as IDataObject).outcome).toBe('alreadyExists');
		expect(real.items[1].json.id).toBe(real.items[0].json.id);
	});

	it("writes nothing when a model's arguments ask for a preview with Skip Existing off", async () => {
		const items = await runToolCall({
			credentials: credentialsFor(sandbox),
			parameters: createAda(business(), {
				firstName: 'Model',
				lastName: 'Chosen',
				additionalFields: { email: 'model.chosen@example.com' },
				skipExisting: "={{ $fromAI('skipExisting', '', 'boolean') }}",
				previewOnly: "={{ $fromAI('previewOnly', '', 'boolean') }}",
			}),
			items: [{ skipExisting: false, previewOnly: true }],
			asTool: true,
		});
		expect(items.map((item) => (item.json[MARK] as IDataObject).outcome)).toEqual(['created']);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		expect(requestsTo(sandbox, CUSTOMERS)).toHaveLength(0);
	});

	it('predicts across the node runs of one execution: a second node skips what the first would create', async () => {
		const rows = sheet().slice(0, 2);
		const node = (name: string, previewOnly: boolean) => ({
			name,
			parameters: createAda(business(), {
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}' },
				skipExisting: true,
				matchOn: 'email',
				previewOnly,
			}),
		});
		const chain = async (previewOnly: boolean) =>
			await runChain({
				credentials: credentialsFor(sandbox),
				nodes: [node('Import', previewOnly), node('Import Again', previewOnly)],
				items: rows,
			});
		const preview = await chain(true);
		expect(requestsTo(sandbox, ADD)).toHaveLength(0);
		const second = preview.items['Import Again'].map((item) => item.json[MARK] as IDataObject);
		expect(second.map((mark) => mark.outcome)).toEqual(['alreadyExists', 'alreadyExists']);
		expect(second[0]).toMatchObject({ earlierRow: 'row 1 (New Person)' });
		expect(second[0].result).toBe(
			previewResult('alreadyExists', 'email', {
				earlierRow: 'row 1 (New Person)',
				earlierIn: ' of the node "Import" earlier in this execution',
			}),
		);
		const real = await chain(false);
		expect(
			real.items['Import Again'].map((item) => (item.json[MARK] as IDataObject).outcome),
		).toEqual(second.map((mark) => mark.outcome));
		expect(requestsTo(sandbox, ADD)).toHaveLength(1);
	});
});
