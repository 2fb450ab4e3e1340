import type { INodeProperties } from 'n8n-workflow';
import { customerCreateDescription } from './create/description';
import { customerCreateOperation } from './create/operation';
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
