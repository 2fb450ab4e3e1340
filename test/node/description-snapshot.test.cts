/**
 * Every text, default and option a user sees in the editor, pinned as a whole. A change here is
 * either intended (review the diff, then `npx jest -u test/node/description-snapshot.test.cts`) or a
 * slip that the editor would show. The classes are built inside each test on purpose: their
 * fields are then tied to this test, so the mutation run tries each field against it.
 */
import { BusinessCrmApi } from '../../credentials/BusinessCrmApi.credentials';
import { BusinessCrm } from '../../nodes/BusinessCrm/BusinessCrm.node';
import { BusinessCrmTrigger } from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';

describe('what users read in the editor', () => {
	it('Business CRM node', () => {
		const node = new BusinessCrm();
		expect(node.description).toMatchSnapshot();
		expect(Object.keys(node.methods.listSearch)).toEqual(['searchBusinesses']);
	});

	it('Business CRM Trigger node', () => {
		const trigger = new BusinessCrmTrigger();
		expect(trigger.description).toMatchSnapshot();
		expect(Object.keys(trigger.methods.listSearch)).toEqual(['searchBusinesses']);
	});

	it('Business CRM API credential', () => {
		const { name, displayName, documentationUrl, icon, properties, authenticate, test } =
			new BusinessCrmApi();
		expect({
			name,
			displayName,
			documentationUrl,
			icon,
			properties,
			authenticate,
			test,
		}).toMatchSnapshot();
	});
});
