/**
 * Saved workflows leave out every parameter whose value equals its default, so changing a default
 * silently changes what existing workflows do. A default may change only with a node version bump:
 * this pins every default of every parameter, nested ones included, of both nodes.
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
): Array<[string, NodeParameterValueType | undefined]> {
	const found: Array<[string, NodeParameterValueType | undefined]> = [];
	for (const property of properties) {
		const show = property.displayOptions?.show;
		// Options inside a collection name the top-level parameters as '/resource', '/operation'.
		const shown = (key: string) => show?.[key] ?? show?.[`/${key}`];
		const where = show
			? ` [${[shown('resource'), shown('operation'), shown('returnAll')].filter(Boolean).join('/')}]`
			: '';
		const path = `${prefix}${property.name}${where}`;
		found.push([path, property.default]);
		for (const option of property.options ?? []) {
			if ('type' in option) found.push(...defaults([option], `${path} › `));
			else if ('values' in option) {
				found.push(...defaults((option as INodePropertyCollection).values, `${path} › `));
			}
		}
	}
	return found;
}

describe('defaults never change without a node version bump', () => {
	it('Business CRM, version 1', () => {
		const { description } = new BusinessCrm();
		expect(description.version).toBe(1);
		expect(defaults(description.properties)).toEqual(ACTION_DEFAULTS);
	});

	it('Business CRM Trigger, version 1', () => {
		const { description } = new BusinessCrmTrigger();
		expect(description.version).toBe(1);
		expect(defaults(description.properties)).toEqual(TRIGGER_DEFAULTS);
	});
});

const ACTION_DEFAULTS = [
	['resource', 'customer'],
	['operation [business]', 'getAll'],
	['businessId [business/get]', { mode: 'list', value: '' }],
	['returnAll [business/getAll]', false],
	['limit [business/getAll/false]', 50],
	['operation [customer]', 'create'],
	['businessId [customer/create]', { mode: 'list', value: '' }],
	['firstName [customer/create]', ''],
	['lastName [customer/create]', ''],
	['additionalFields [customer/create]', {}],
	['additionalFields [customer/create] › customFields', {}],
	['additionalFields [customer/create] › customFields › name', ''],
	['additionalFields [customer/create] › customFields › value', ''],
	['additionalFields [customer/create] › email', ''],
	['additionalFields [customer/create] › phone', ''],
	['skipExisting [customer/create]', false],
	['matchOn [customer/create]', 'email'],
	['matchWithin [customer/create]', 'business'],
	// Changed before the first release: a row without an email was passed as skipped in silence.
	['noMatchValue [customer/create]', 'error'],
	['previewOnly [customer/create]', false],
	['findBy [customer/find]', 'email'],
	['email [customer/find]', ''],
	['phone [customer/find]', ''],
	['firstName [customer/find]', ''],
	['lastName [customer/find]', ''],
	// Added before the first release, shown only with Find By › Customer ID.
	['customerId [customer/find]', ''],
	// Added before the first release; its default is what Find did before it existed.
	['whenNothingMatches [customer/find]', 'nothing'],
	['returnAll [customer/getAll]', false],
	['limit [customer/getAll/false]', 50],
	['filters [customer/getAll]', {}],
	['filters [customer/getAll] › businessId', { mode: 'list', value: '' }],
	['options', {}],
	['options › maxRetries', 5],
	['options › maxRetryWait', 120],
	['options › pagesInParallel [business,customer/getAll,find]', 10],
	['options › pagesInParallel [customer/create]', 10],
];

const TRIGGER_DEFAULTS = [
	['activationNotice', ''],
	['event', 'newCustomer'],
	['options', {}],
	['options › businessId', { mode: 'list', value: '' }],
];
