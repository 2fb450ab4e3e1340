/**
 * The Create request body, from the one list of its fields (create/fields.ts): every optional field
 * is an option under Additional Fields and a body field of the same name, sent cleaned and left out
 * when empty, takes one value, and is a name a custom field may not take. A new field in that list
 * is tested here with no new line. The other refusals of custom fields, as typed and from
 * expressions, are in test/params/bad-input.test.cts with every other parameter's.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { type Sandbox } from '../../../sandbox/server.cjs';
import { runNode } from '../../../helpers/harness.cjs';
import { credentialsFor, requestsTo, useSandbox, createAda } from '../../../helpers/fixtures.cjs';
import { BusinessCrm } from '../../../../nodes/BusinessCrm/BusinessCrm.node';
import {
	nodeFields,
	optionalFields,
	requiredFields,
} from '../../../../nodes/BusinessCrm/resources/customer/create/fields';
import { CREATE_URL as ADD } from '../../../../nodes/BusinessCrm/resources/customer/create/request';

/** Additional Fields of Create as the node's description offers them. */
const additionalFields = new BusinessCrm().description.properties.find(
	(property) =>
		property.name === 'additionalFields' &&
		property.displayOptions?.show?.operation?.includes('create'),
) as INodeProperties;

/** A value the API accepts for the field: its placeholder's example ("e.g. nathan@example.com"). */
const sample = (field: INodeProperties) => String(field.placeholder).replace(/^e\.g\. /, '');

describe('Customer › Create: the request body', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 1 }, { customers: 0 }, (started) => (sandbox = started));

	const create = (additional: INodeParameters) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: createAda(sandbox.businesses[0].id, { additionalFields: additional }),
		});

	it('offers every optional field under Additional Fields, with Custom Fields, in alphabetical order', () => {
		const names = (additionalFields.options as INodeProperties[]).map((option) => option.name);
		expect(names.sort()).toEqual(
			['customFields', ...optionalFields.map((field) => field.name)].sort(),
		);
		const shown = (additionalFields.options as INodeProperties[]).map((o) => o.displayName);
		expect(shown).toEqual([...shown].sort((a, b) => a.localeCompare(b)));
	});

	it('sends every optional field under its own name, cleaned, and nothing else than the node fields', async () => {
		const filled = Object.fromEntries(
			optionalFields.map((field) => [field.name, `\u200b ${sample(field)} \n`]),
		);
		const { error } = await create(filled);
		expect(error).toBeUndefined();
		const [request] = requestsTo(sandbox, ADD);
		expect(request.body).toEqual({
			businessId: sandbox.businesses[0].id,
			firstName: 'Ada',
			lastName: 'Lovelace',
			...Object.fromEntries(optionalFields.map((field) => [field.name, sample(field)])),
		});
		// The body's own fields are the list's: none is missing from it, none outside it.
		expect(Object.keys(request.body as object).sort()).toEqual(Object.keys(nodeFields).sort());
		expect(Object.keys(nodeFields)).toEqual([
			...requiredFields.map((field) => field.name),
			...optionalFields.map((field) => field.name),
		]);
	});

	it.each(optionalFields.map((field) => [field.displayName, field.name]))(
		'leaves %s out of the body when it is empty or only spaces',
		async (_label, name) => {
			const { error } = await create({ [name]: '  \u200b ' });
			expect(error).toBeUndefined();
			const [request] = requestsTo(sandbox, ADD);
			expect(request.body).not.toHaveProperty(name);
		},
	);

	it.each(optionalFields.map((field) => [field.displayName, field.name]))(
		'refuses a list from an expression in %s, naming it, and sends nothing',
		async (label, name) => {
			const { error } = await create({ [name]: '={{ ["a", "b"] }}' });
			expect(error?.message).toBe(`${label} is a list of 2 values, not one value`);
			expect(requestsTo(sandbox, ADD)).toEqual([]);
		},
	);

	it.each(Object.entries(nodeFields).map(([name, { label, where }]) => [name, label, where]))(
		'refuses a custom field named %s (any capitals), which would overwrite the %s the node sends',
		async (name, label, where) => {
			const { error } = await create({
				customFields: { field: [{ name: name.toUpperCase(), value: 'x' }] },
			});
			expect(error?.message).toBe(
				`Custom field "${name.toUpperCase()}" would overwrite the ${label} the node sends`,
			);
			expect(error?.description).toBe(
				`Enter it in the node's ${where} field, or give the custom field another name.`,
			);
			expect(requestsTo(sandbox, ADD)).toEqual([]);
		},
	);
});
