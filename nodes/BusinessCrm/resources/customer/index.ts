import type { INodeProperties } from 'n8n-workflow';
import { customerCreateDescription, customerCreateOperation } from './create';
import { customerFindDescription, customerFindOperation } from './find';
import { customerGetManyDescription, customerGetManyOperation } from './getAll';

export const customerDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customer'] } },
		options: [customerCreateOperation, customerFindOperation, customerGetManyOperation],
		default: 'create',
	},
	...customerCreateDescription,
	...customerFindDescription,
	...customerGetManyDescription,
];
