/**
 * The output schemas the package ships (nodes/BusinessCrm/__schema__, what n8n's editor shows
 * before a node has run) and the check that holds an operation's real output to them.
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { INodeExecutionData } from 'n8n-workflow';
import businessGet from '../../nodes/BusinessCrm/__schema__/v1.0.0/business/get.json';
import businessGetAll from '../../nodes/BusinessCrm/__schema__/v1.0.0/business/getAll.json';
import customerCreate from '../../nodes/BusinessCrm/__schema__/v1.0.0/customer/create.json';
import customerFind from '../../nodes/BusinessCrm/__schema__/v1.0.0/customer/find.json';
import customerGetAll from '../../nodes/BusinessCrm/__schema__/v1.0.0/customer/getAll.json';

/** The folder of the node's schemas, under the node's folder: `v` and its type version in three parts. */
export const SCHEMA_FOLDER = '__schema__/v1.0.0';

export const OUTPUT_SCHEMAS: Record<string, Record<string, JsonSchema>> = {
	business: { get: businessGet, getAll: businessGetAll },
	customer: { create: customerCreate, getAll: customerGetAll, find: customerFind },
};

export type JsonSchema = { [key: string]: unknown };

/**
 * The sandbox's guesses at fields the spec does not show (test/sandbox/server.cts, guesses 2 and
 * 3). The schemas leave them out, since the real API may name them otherwise, and keep the
 * record open to fields like them.
 */
export const SANDBOX_ONLY_FIELDS = {
	business: ['email', 'phone', 'createdAt'],
	customer: ['createdAt'],
};

// strictRequired off: the marks' if/then/else require properties their parent defines.
const ajv = new Ajv({
	allErrors: true,
	strict: true,
	strictRequired: false,
	allowUnionTypes: true,
});

/**
 * The schema closed: where it leaves a record open to the API's own fields, only `apiFields` (the
 * fields the API sent that the schema does not show) may be there besides the schema's own. So a
 * field the node adds, or one whose type changed, fails.
 */
export function closed(schema: JsonSchema, apiFields: string[]): JsonSchema {
	const close = (node: unknown): unknown => {
		if (Array.isArray(node)) return node.map(close);
		if (node === null || typeof node !== 'object') return node;
		const copy = Object.fromEntries(
			Object.entries(node).map(([key, value]) => [key, close(value)]),
		) as JsonSchema;
		if (copy.additionalProperties === true) {
			const own = (copy.properties ?? {}) as JsonSchema;
			const extra = apiFields.filter((field) => !(field in own));
			copy.properties = { ...own, ...Object.fromEntries(extra.map((field) => [field, {}])) };
			copy.additionalProperties = false;
		}
		return copy;
	};
	return close(schema) as JsonSchema;
}

function described(error: ErrorObject): string {
	const where = error.instancePath || '(the item)';
	const detail =
		error.keyword === 'additionalProperties'
			? ` "${String((error.params as { additionalProperty: string }).additionalProperty)}"`
			: '';
	return `${where} ${error.message ?? error.keyword}${detail}`;
}

/**
 * What in the items' json the operation's schema, closed to `apiFields`, does not allow: one line
 * per problem, naming the item. Empty when every item fits.
 */
export function schemaProblems(
	resource: string,
	operation: string,
	items: INodeExecutionData[],
	apiFields: string[] = [],
): string[] {
	const validate = ajv.compile(closed(OUTPUT_SCHEMAS[resource][operation], apiFields));
	return items.flatMap(({ json }, index) => {
		if (validate(json)) return [];
		return (validate.errors ?? []).map(
			(error) => `item ${index} ${JSON.stringify(json)}: ${described(error)}`,
		);
	});
}
