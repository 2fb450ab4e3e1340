/**
 * The hints n8n's node catalog gives AI workflow builders (MCP workflow-builder tools, Instance
 * AI): the node's searchHint and a propertyHint on each resource and operation. That n8n-core
 * 2.41's loader accepts them is shown by test/package/package-load.test.cts, which loads dist/
 * with it; n8n 1.123.81 and 2.8.4, which know no builderHint, load and run the node in the
 * real-n8n suite.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { BusinessCrm } from '../../nodes/BusinessCrm/BusinessCrm.node';
import { BusinessCrmTrigger } from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';

const { description } = new BusinessCrm();
const trigger = new BusinessCrmTrigger().description;

const options = (property: INodeProperties) => property.options as INodePropertyOptions[];
const discriminators = description.properties.filter((property) =>
	['resource', 'operation', 'mode'].includes(property.name),
);

describe('hints for AI workflow builders', () => {
	it('n8n-core 2.41 refuses a node with a hint on resource, operation or mode: none is there', () => {
		expect(discriminators.length).toBeGreaterThan(2);
		for (const property of discriminators) expect(property.builderHint).toBeUndefined();
	});

	it('every resource and every operation carries its own hint', () => {
		const hinted = discriminators.flatMap((property) =>
			options(property).map((option) => [
				`${property.name} ${String(option.value)}`,
				option.builderHint?.propertyHint ?? '',
			]),
		);
		expect(hinted.map(([name]) => name).sort()).toEqual([
			'operation create',
			'operation find',
			'operation get',
			'operation getAll',
			'operation getAll',
			'resource business',
			'resource customer',
		]);
		for (const [name, hint] of hinted) expect([name, hint.length > 40]).toEqual([name, true]);
	});

	it('steer a builder to Find or Skip Existing before Create, and to real IDs', () => {
		const search = description.builderHint?.searchHint ?? '';
		expect(search).toMatch(/biz_…/);
		expect(search).toMatch(/cust_…/);
		expect(search).toMatch(/Skip Existing/);
		expect(search).toMatch(/Customer › Find first/);
		const hintOf = (value: string) =>
			discriminators.flatMap(options).find((option) => option.value === value)?.builderHint
				?.propertyHint ?? '';
		expect(hintOf('create')).toMatch(/Skip Existing/);
		expect(hintOf('find')).toMatch(/before Customer › Create/);
		const skip = description.properties.find((property) => property.name === 'skipExisting');
		expect(skip?.builderHint?.propertyHint).toMatch(/import/);
		const business = description.properties.find((property) => property.name === 'businessId');
		expect(business?.builderHint?.propertyHint).toMatch(/never invent/);
	});

	it('name related nodes by their real types', () => {
		expect(description.builderHint?.relatedNodes?.map((node) => node.nodeType)).toEqual([
			`n8n-nodes-business-crm.${trigger.name}`,
			'n8n-nodes-base.if',
		]);
		expect(trigger.builderHint?.relatedNodes?.map((node) => node.nodeType)).toEqual([
			`n8n-nodes-business-crm.${description.name}`,
		]);
		expect(trigger.builderHint?.searchHint).toMatch(/each customer added/);
	});
});
