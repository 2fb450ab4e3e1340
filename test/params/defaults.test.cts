/**
 * Saved workflows leave out every parameter whose value equals its default, so changing a default
 * silently changes what existing workflows do. A default may change only with a node version bump.
 * Derived from the description: a parameter that holds text, a list of fields or a business is
 * empty until the user fills it (checked for every one, so a new text field needs no line here);
 * the defaults that choose a behaviour (options, switches, numbers) are pinned one by one.
 */
import type {
	INodeProperties,
	INodePropertyCollection,
	NodeParameterValueType,
} from 'n8n-workflow';
import { BusinessCrm } from '../../nodes/BusinessCrm/BusinessCrm.node';
import { BusinessCrmTrigger } from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';

/** "name [resource/operation]" → default, for every parameter and every option inside one. */
function defaults(
	properties: INodeProperties[],
	prefix = '',
): Array<[string, NodeParameterValueType | undefined, string]> {
	const found: Array<[string, NodeParameterValueType | undefined, string]> = [];
	for (const property of properties) {
		const show = property.displayOptions?.show;
		// Options inside a collection name the top-level parameters as '/resource', '/operation'.
		const shown = (key: string) => show?.[key] ?? show?.[`/${key}`];
		const where = show
			? ` [${[shown('resource'), shown('operation'), shown('returnAll')].filter(Boolean).join('/')}]`
			: '';
		const path = `${prefix}${property.name}${where}`;
		found.push([path, property.default, property.type]);
		for (const option of property.options ?? []) {
			if ('type' in option) found.push(...defaults([option], `${path} › `));
			else if ('values' in option) {
				found.push(...defaults((option as INodePropertyCollection).values, `${path} › `));
			}
		}
	}
	return found;
}

/** Types whose default is "nothing yet": the user's text, fields or business. */
const EMPTY_UNTIL_FILLED: Record<string, unknown> = {
	string: '',
	collection: {},
	fixedCollection: {},
	resourceLocator: { mode: 'list', value: '' },
	notice: '',
};

function pinned(
	properties: INodeProperties[],
): Array<[string, NodeParameterValueType | undefined]> {
	return defaults(properties)
		.filter(([, , type]) => !(type in EMPTY_UNTIL_FILLED))
		.map(([path, value]) => [path, value]);
}

describe('defaults never change without a node version bump', () => {
	it.each([
		['Business CRM', new BusinessCrm().description.properties],
		['Business CRM Trigger', new BusinessCrmTrigger().description.properties],
	])('%s: every text, field list and business starts empty', (_node, properties) => {
		for (const [path, value, type] of defaults(properties)) {
			if (type in EMPTY_UNTIL_FILLED)
				expect([path, value]).toEqual([path, EMPTY_UNTIL_FILLED[type]]);
		}
	});

	it('Business CRM, version 1: the defaults that choose a behaviour', () => {
		const { description } = new BusinessCrm();
		expect(description.version).toBe(1);
		expect(pinned(description.properties)).toEqual(ACTION_DEFAULTS);
	});

	it('Business CRM Trigger, version 1: the defaults that choose a behaviour', () => {
		const { description } = new BusinessCrmTrigger();
		expect(description.version).toBe(1);
		expect(pinned(description.properties)).toEqual(TRIGGER_DEFAULTS);
	});
});

const ACTION_DEFAULTS = [
	['resource', 'customer'],
	['operation [business]', 'getAll'],
	['returnAll [business/getAll]', false],
	['limit [business/getAll/false]', 50],
	['operation [customer]', 'create'],
	['skipExisting [customer/create]', false],
	['matchOn [customer/create]', 'email'],
	['matchWithin [customer/create]', 'business'],
	// Changed before the first release: a row without an email was passed as skipped in silence.
	['noMatchValue [customer/create]', 'error'],
	['previewOnly [customer/create]', false],
	['findBy [customer/find]', 'email'],
	// Added before the first release; its default is what Find did before it existed.
	['whenNothingMatches [customer/find]', 'nothing'],
	['returnAll [customer/getAll]', false],
	['limit [customer/getAll/false]', 50],
	['options › maxRetries', 5],
	['options › maxRetryWait', 120],
	['options › pagesInParallel [business,customer/getAll,find]', 10],
	['options › pagesInParallel [customer/create]', 10],
];

const TRIGGER_DEFAULTS = [['event', 'newCustomer']];
