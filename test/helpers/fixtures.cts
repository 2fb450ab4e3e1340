import type { INodeParameters } from 'n8n-workflow';
import type { Sandbox } from '../sandbox/server.cjs';
import type { CrmCredentials } from './harness.cjs';

/** A working credential for the sandbox. */
export function credentialsFor(sandbox: Sandbox): CrmCredentials {
	return { baseUrl: sandbox.url, apiKey: sandbox.apiKey, organizationId: sandbox.organizationId };
}

/** A Business locator value as n8n saves it. */
export function byId(value: string): INodeParameters['businessId'] {
	return { __rl: true, mode: 'id', value };
}

/** The requests the sandbox saw for one path, in order. */
export function requestsTo(sandbox: Sandbox, path: string) {
	return sandbox.requests.filter((request) => request.path === path);
}
