/**
 * Business › Get and Get Many against their output schemas (nodes/BusinessCrm/__schema__), in
 * every reply shape the node understands: a field the node outputs that the schema does not show,
 * or of another type, fails. The record's own fields beyond the schema's are the API's, listed
 * per case (see closed() in test/helpers/output-schemas.cts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import {
	BUSINESS_LIST_SHAPES,
	startSandbox,
	type BusinessListShape,
	type Sandbox,
} from '../../sandbox/server.cjs';
import { runNode, type RunOptions } from '../../helpers/harness.cjs';
import { credentialsFor, getBusinessOf } from '../../helpers/fixtures.cjs';
import { always, withApi } from '../../helpers/scripted-api.cjs';
import { SANDBOX_ONLY_FIELDS, schemaProblems } from '../../helpers/output-schemas.cjs';

const GET_MANY: INodeParameters = { resource: 'business', operation: 'getAll', returnAll: true };
const NO_RETRIES = { options: { maxRetries: 0 } };

describe('Business output schemas', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 3 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetFaults();
		sandbox.setBusinessListShape('paginated');
	});

	const inSandbox = async (parameters: INodeParameters, options: Partial<RunOptions> = {}) =>
		await runNode({ credentials: credentialsFor(sandbox), parameters, ...options });

	/** The node's output for `parameters` against an API that answers every request with `body`. */
	const answering = async (body: unknown, parameters: INodeParameters) =>
		await withApi(
			always(200, JSON.stringify(body)),
			async (api) => await runNode({ credentials: api.credentials, parameters }),
		);

	describe('Get', () => {
		it("fits the sandbox's business", async () => {
			const { items, error } = await inSandbox(getBusinessOf(sandbox.businesses[1].id));
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(schemaProblems('business', 'get', items, SANDBOX_ONLY_FIELDS.business)).toEqual([]);
		});

		it.each<[string, unknown, string[]]>([
			['content as the record', { message: 'ok', content: { id: 'biz_1', name: 'Acme' } }, []],
			['the record alone', { id: 'biz_1', name: 'Acme', plan: 'pro' }, ['plan']],
			[
				'content with more beside the business (output whole)',
				{ message: 'ok', content: { business: { id: 'biz_1' }, owner: { id: 'usr_1' } } },
				['business', 'owner'],
			],
		])('fits a reply with %s', async (_, body, apiFields) => {
			const { items, error } = await answering(body, getBusinessOf('biz_1'));
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(schemaProblems('business', 'get', items, apiFields)).toEqual([]);
		});

		it('fits the error item of On Error › Continue, on either output', async () => {
			for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
				const { items, errorItems } = await inSandbox(getBusinessOf('biz_missing'), { onError });
				const errors = onError === 'continueRegularOutput' ? items : errorItems;
				expect(errors.map((item) => typeof item.json.error)).toEqual(['string']);
				expect(schemaProblems('business', 'get', errors)).toEqual([]);
			}
		});

		it("fails a field the schema does not show, and a field's other type", async () => {
			const { items } = await answering(
				{ id: 'biz_1', name: 'Acme', plan: 'pro' },
				getBusinessOf(),
			);
			expect(schemaProblems('business', 'get', items)).toEqual([
				`item 0 ${JSON.stringify(items[0].json)}: (the item) must NOT have additional properties "plan"`,
			]);
			const numbered = await answering({ id: 7, name: 'Acme' }, getBusinessOf());
			expect(schemaProblems('business', 'get', numbered.items)).toEqual([
				`item 0 {"id":7,"name":"Acme"}: /id must be string`,
			]);
		});
	});

	describe('Get Many', () => {
		it.each([...BUSINESS_LIST_SHAPES] as BusinessListShape[])(
			'fits the %s list shape',
			async (shape) => {
				sandbox.setBusinessListShape(shape);
				const { items, error } = await inSandbox(GET_MANY);
				expect(error).toBeUndefined();
				expect(items).toHaveLength(sandbox.businesses.length);
				expect(schemaProblems('business', 'getAll', items, SANDBOX_ONLY_FIELDS.business)).toEqual(
					[],
				);
			},
		);

		const two: IDataObject[] = [
			{ id: 'biz_1', name: 'Acme' },
			{ id: 'biz_2', name: 'Globex' },
		];
		it.each<[string, unknown]>([
			['content.data', { message: 'ok', content: { data: two } }],
			[
				'a pagination object beside the list',
				{ data: two, pagination: { total: 2, limit: 100, offset: 0, hasMore: false } },
			],
		])('fits a list under %s', async (_, body) => {
			const { items, error } = await answering(body, GET_MANY);
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(two);
			expect(schemaProblems('business', 'getAll', items)).toEqual([]);
		});

		it('fits the error item of On Error › Continue', async () => {
			sandbox.setFaults({ serverError: { status: 503 } });
			const { items } = await inSandbox(
				{ ...GET_MANY, ...NO_RETRIES },
				{ onError: 'continueRegularOutput' },
			);
			expect(items.map((item) => typeof item.json.error)).toEqual(['string']);
			expect(schemaProblems('business', 'getAll', items)).toEqual([]);
		});
	});
});
