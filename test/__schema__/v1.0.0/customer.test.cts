/**
 * Customer › Create, Get Many and Find against their output schemas (nodes/BusinessCrm/__schema__),
 * in every reply shape the node understands and every kind of item it outputs: a field the node
 * outputs that the schema does not show, or of another type, fails. The record's own fields beyond
 * the schema's are the API's, listed per case (see closed() in test/helpers/output-schemas.cts).
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { Sandbox } from '../../sandbox/server.cjs';
import { runChain, runNode, type RunOptions } from '../../helpers/harness.cjs';
import { byId, createAda, credentialsFor, useSandbox } from '../../helpers/fixtures.cjs';
import { always, startCreateApi, withApi, type CreateReply } from '../../helpers/scripted-api.cjs';
import { SANDBOX_ONLY_FIELDS, schemaProblems } from '../../helpers/output-schemas.cjs';
import { SKIP_MARK, skipResult } from '../../../nodes/BusinessCrm/resources/customer/create/mark';

const CUSTOMER = SANDBOX_ONLY_FIELDS.customer;
const ADA = { id: 'cust_1', businessId: 'biz_1', firstName: 'Ada', lastName: 'Lovelace' };
const GRACE = { id: 'cust_2', businessId: 'biz_1', firstName: 'Grace', lastName: 'Hopper' };

const outcomes = (items: INodeExecutionData[]) =>
	items.map((item) => (item.json[SKIP_MARK] as IDataObject | undefined)?.outcome);

describe('Customer output schemas', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 30 }, (started) => (sandbox = started));

	const business = () => sandbox.businesses[0].id;
	/** A customer of the first business with an email and a phone. */
	const known = () =>
		sandbox.customers.find((c) => c.businessId === business() && c.email && c.phone)!;
	const inSandbox = async (parameters: INodeParameters, options: Partial<RunOptions> = {}) =>
		await runNode({ credentials: credentialsFor(sandbox), parameters, ...options });

	describe('Get Many', () => {
		const getMany: INodeParameters = { resource: 'customer', operation: 'getAll', returnAll: true };

		it('fits every customer of the list, and of one business', async () => {
			const all = await inSandbox(getMany);
			const ofOne = await inSandbox({ ...getMany, filters: { businessId: byId(business()) } });
			expect(all.items).toHaveLength(30);
			expect(ofOne.items.length).toBeGreaterThan(0);
			expect(schemaProblems('customer', 'getAll', all.items, CUSTOMER)).toEqual([]);
			expect(schemaProblems('customer', 'getAll', ofOne.items, CUSTOMER)).toEqual([]);
		});

		it.each<[string, unknown]>([
			['a top-level array', [ADA, GRACE]],
			['content as an array', { message: 'ok', content: [ADA, GRACE] }],
			[
				'data, with a pagination object beside it',
				{ data: [ADA, GRACE], pagination: { total: 2, limit: 100, offset: 0, hasMore: false } },
			],
		])(
			'fits a list in %s',
			async (_, body) =>
				await withApi(always(200, JSON.stringify(body)), async (api) => {
					const { items } = await runNode({ credentials: api.credentials, parameters: getMany });
					expect(items.map((item) => item.json)).toEqual([ADA, GRACE]);
					expect(schemaProblems('customer', 'getAll', items)).toEqual([]);
				}),
		);

		it('fits the error item of On Error › Continue', async () => {
			const { items } = await inSandbox(
				{ ...getMany, filters: { businessId: byId('') } },
				{ onError: 'continueRegularOutput' },
			);
			expect(items.map((item) => typeof item.json.error)).toEqual(['string']);
			expect(schemaProblems('customer', 'getAll', items)).toEqual([]);
		});
	});

	describe('Find', () => {
		const find = (search: INodeParameters): INodeParameters => ({
			resource: 'customer',
			operation: 'find',
			whenNothingMatches: 'notFoundItem',
			...search,
		});

		it('fits a customer found by email, phone and name, and the not-found item', async () => {
			const { email, phone, firstName, lastName } = known();
			const byEach = await Promise.all(
				[
					{ findBy: 'email', email },
					{ findBy: 'phone', phone },
					{ findBy: 'name', firstName, lastName },
					{ findBy: 'email', email: 'nobody@example.com' },
				].map(async (search) => (await inSandbox(find(search))).items),
			);
			expect(byEach.map((found) => found.map((item) => item.json.id))).toEqual([
				[known().id],
				[known().id],
				[known().id],
				[undefined],
			]);
			expect(byEach[3].map((item) => item.json)).toEqual([
				{ found: false, findBy: 'email', email: 'nobody@example.com' },
			]);
			expect(schemaProblems('customer', 'find', byEach.flat(), CUSTOMER)).toEqual([]);
		});

		it('fits the error item of On Error › Continue', async () => {
			const { items } = await inSandbox(find({ findBy: 'email', email: ' ' }), {
				onError: 'continueRegularOutput',
			});
			expect(items.map((item) => typeof item.json.error)).toEqual(['string']);
			expect(schemaProblems('customer', 'find', items)).toEqual([]);
		});

		it('fits a customer an earlier Create of the execution added, answered without a body', async () => {
			const api = await startCreateApi(() => ({
				status: 201,
				headers: { location: '/api/public/v1/customers/cust_7f3a9c' },
			}));
			const email = 'ada@example.com';
			const findAda = find({ findBy: 'email', email });
			try {
				const { items } = await runChain({
					credentials: api.credentials,
					// The execution's list read starts before the Create, so the Find after it finds Ada
					// in what the execution created.
					nodes: [
						{ name: 'Find first', parameters: findAda },
						{ name: 'Create', parameters: createAda('biz_1', { additionalFields: { email } }) },
						{ name: 'Find', parameters: findAda },
					],
				});
				expect(items.Find.map((item) => item.json.location)).toEqual([
					'/api/public/v1/customers/cust_7f3a9c',
				]);
				expect(schemaProblems('customer', 'create', items.Create)).toEqual([]);
				expect(schemaProblems('customer', 'find', [...items['Find first'], ...items.Find])).toEqual(
					[],
				);
			} finally {
				await api.close();
			}
		});
	});

	describe('Create', () => {
		const create = (extra: INodeParameters = {}) => createAda(business(), extra);

		it('fits the created customer, custom fields as the API keeps them', async () => {
			const { items, error } = await inSandbox(
				create({
					additionalFields: {
						email: 'ada@example.com',
						phone: '+44 20 7946 0958',
						customFields: {
							field: [
								{ name: 'leadSource', value: 'Newsletter' },
								{ name: 'vip', value: '={{ true }}' },
							],
						},
					},
				}),
			);
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ leadSource: 'Newsletter', vip: true });
			expect(
				schemaProblems('customer', 'create', items, [...CUSTOMER, 'leadSource', 'vip']),
			).toEqual([]);
		});

		const beside = { message: 'ok', content: { customer: ADA, receipt: 'r_1' } };
		it.each<[string, CreateReply, string[]]>([
			['content as the customer', { status: 201, body: JSON.stringify({ content: ADA }) }, []],
			['the customer alone', { status: 200, body: JSON.stringify(ADA) }, []],
			[
				'content with more beside the customer (output whole)',
				{ status: 201, body: JSON.stringify(beside) },
				['customer', 'receipt'],
			],
			['no body and a Location', { status: 201, headers: { location: '/customers/cust_1' } }, []],
			['no body and no Location', { status: 204 }, []],
		])('fits a reply with %s', async (_, reply, apiFields) => {
			const api = await startCreateApi(() => reply);
			try {
				const { items, error } = await runNode({
					credentials: api.credentials,
					parameters: createAda('biz_1'),
				});
				expect(error).toBeUndefined();
				expect(items).toHaveLength(1);
				expect(schemaProblems('customer', 'create', items, apiFields)).toEqual([]);
			} finally {
				await api.close();
			}
		});

		/** Rows that meet every outcome of Skip if the Customer Already Exists. */
		const rows = (): IDataObject[] => [
			{ firstName: 'New', lastName: 'Person', email: 'new.person@example.com' },
			{ firstName: 'Known', lastName: 'One', email: known().email },
			{ firstName: 'No', lastName: 'Mail' },
		];
		const skipExisting = (noMatchValue: string, extra: INodeParameters = {}) =>
			create({
				firstName: '={{ $json.firstName }}',
				lastName: '={{ $json.lastName }}',
				additionalFields: { email: '={{ $json.email }}' },
				skipExisting: true,
				matchOn: 'email',
				noMatchValue,
				...extra,
			});

		it('fits each outcome of Skip if the Customer Already Exists', async () => {
			const skipped = await inSandbox(skipExisting('skip'), { items: rows() });
			const created = await inSandbox(skipExisting('create'), { items: rows().slice(2) });
			expect(outcomes(skipped.items)).toEqual([
				'created',
				'alreadyExists',
				'notCreatedNoMatchValue',
			]);
			expect(outcomes(created.items)).toEqual(['createdNoMatchValue']);
			const items = [...skipped.items, ...created.items];
			expect(schemaProblems('customer', 'create', items, CUSTOMER)).toEqual([]);
		});

		it('fits each outcome of Preview Only, refused rows included', async () => {
			const sheet = [
				...rows().slice(0, 2),
				{ firstName: 'New', lastName: 'Again', email: 'NEW.PERSON@example.com' },
				{ firstName: 'Edsger', lastName: 'Dijkstra' },
				{ firstName: ' ', lastName: 'Blank', email: 'blank@example.com' },
			];
			const preview = await inSandbox(skipExisting('error', { previewOnly: true }), {
				items: sheet,
			});
			const noMail = await Promise.all(
				['skip', 'create'].map(
					async (noMatchValue) =>
						(
							await inSandbox(skipExisting(noMatchValue, { previewOnly: true }), {
								items: rows().slice(2),
							})
						).items,
				),
			);
			const items = [...preview.items, ...noMail.flat()];
			expect(outcomes(items)).toEqual([
				'created',
				'alreadyExists',
				'alreadyExists',
				'refused',
				'refused',
				'notCreatedNoMatchValue',
				'createdNoMatchValue',
			]);
			expect((items[2].json[SKIP_MARK] as IDataObject).earlierRow).toBe('row 1 (New Person)');
			expect(schemaProblems('customer', 'create', items, CUSTOMER)).toEqual([]);
		});

		it('fits the preview of a row several customers match', async () => {
			const [one, twin] = sandbox.customers.filter((c) => c.businessId === business() && c.email);
			twin.email = String(one.email).toUpperCase();
			const { items } = await inSandbox(skipExisting('error', { previewOnly: true }), {
				items: [{ firstName: 'Twin', lastName: 'Match', email: one.email }],
			});
			expect((items[0].json[SKIP_MARK] as IDataObject).matches).toBe(2);
			expect(schemaProblems('customer', 'create', items, CUSTOMER)).toEqual([]);
		});

		it('fits a row created beside customers whose phone matches only in part, run and preview', async () => {
			known().phone = '+1 202 666 0236';
			const onPhone = (previewOnly: boolean) =>
				create({
					firstName: 'Part',
					lastName: 'Match',
					additionalFields: { phone: '666-0236' },
					skipExisting: true,
					matchOn: 'phone',
					previewOnly,
				});
			const items = [
				...(await inSandbox(onPhone(true))).items,
				...(await inSandbox(onPhone(false))).items,
			];
			expect(outcomes(items)).toEqual(['createdPartialMatch', 'createdPartialMatch']);
			expect(schemaProblems('customer', 'create', items, CUSTOMER)).toEqual([]);
		});

		it('fits the error item of On Error › Continue, on either output', async () => {
			const refused = { firstName: 'Bad', lastName: 'Mail', email: 'not-an-email' };
			const regular = await inSandbox(skipExisting('error'), {
				items: [refused],
				onError: 'continueRegularOutput',
			});
			const errorOutput = await inSandbox(skipExisting('error'), {
				items: [{ firstName: 'No', lastName: 'Mail' }],
				onError: 'continueErrorOutput',
			});
			const errors = [...regular.items, ...errorOutput.errorItems];
			expect(errors.map((item) => typeof item.json.error)).toEqual(['string', 'string']);
			expect(schemaProblems('customer', 'create', errors)).toEqual([]);
		});
	});

	it('the Skip Existing mark is exact: a key it does not have, or a preview key in a real run, fails', () => {
		const mark = {
			skipped: false,
			created: true,
			outcome: 'created',
			result: skipResult('created', 'email'),
			matchOn: 'email',
		};
		const item = (extra: IDataObject) => ({ json: { ...ADA, [SKIP_MARK]: { ...mark, ...extra } } });
		expect(schemaProblems('customer', 'create', [item({})])).toEqual([]);
		expect(schemaProblems('customer', 'create', [item({ reason: 'x' })])).toContainEqual(
			expect.stringContaining(`/${SKIP_MARK} must NOT have additional properties "reason"`),
		);
		expect(schemaProblems('customer', 'create', [item({ earlierRow: 'row 1' })])).toContainEqual(
			expect.stringContaining(`/${SKIP_MARK} must match "then" schema`),
		);
		expect(schemaProblems('customer', 'create', [item({ outcome: 'refused' })])).toContainEqual(
			expect.stringContaining(`/${SKIP_MARK} must match "then" schema`),
		);
		// partialMatches goes with createdPartialMatch, always, and with no other outcome.
		const partly = {
			outcome: 'createdPartialMatch',
			result: skipResult('createdPartialMatch', 'phone'),
		};
		expect(
			schemaProblems('customer', 'create', [item({ ...partly, partialMatches: ['cust_2'] })]),
		).toEqual([]);
		expect(schemaProblems('customer', 'create', [item(partly)])).toContainEqual(
			expect.stringContaining(`/${SKIP_MARK} must have required property 'partialMatches'`),
		);
		expect(
			schemaProblems('customer', 'create', [item({ partialMatches: ['cust_2'] })]),
		).toContainEqual(expect.stringContaining(`/${SKIP_MARK} must match "else" schema`));
	});
});
