import type { INodeProperties } from 'n8n-workflow';
import { customerCreateDescription, customerCreateOperation } from './create';
import { customerGetManyDescription, customerGetManyOperation } from './getAll';

export const customerDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customer'] } },
		options: [customerCreateOperation, customerGetManyOperation],
		default: 'create',
	},
	...customerCreateDescription,
	...customerGetManyDescription,
];
