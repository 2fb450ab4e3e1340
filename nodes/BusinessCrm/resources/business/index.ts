import type { INodeProperties } from 'n8n-workflow';
import { businessGetDescription, businessGetOperation } from './get';
import { businessGetManyDescription, businessGetManyOperation } from './getAll';

export const businessDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['business'] } },
		options: [businessGetOperation, businessGetManyOperation],
		default: 'getAll',
	},
	...businessGetDescription,
	...businessGetManyDescription,
];
