import type { IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import { API_ANSWERED } from '../../nodes/BusinessCrm/errors/errors';
import { startSandbox, type Sandbox, type SandboxOptions } from '../sandbox/server.cjs';
import type { CrmCredentials } from './harness.cjs';
import { always, type Answer } from './scripted-api.cjs';

/** A working credential for the sandbox. */
export function credentialsFor(sandbox: Sandbox): CrmCredentials {
	return { baseUrl: sandbox.url, apiKey: sandbox.apiKey, organizationId: sandbox.organizationId };
}

/** A Business locator value as n8n saves it. */
export function byId(value: string): INodeParameters['businessId'] {
	return { __rl: true, mode: 'id', value };
}

/** Business › Get of the business `id`. */
export function getBusinessOf(id = 'biz_1'): INodeParameters {
	return { resource: 'business', operation: 'get', businessId: byId(id) };
}

/** Customer › Create of Ada Lovelace in the business, with `extra` over it. */
export function createAda(businessId = 'biz_1', extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'customer',
		operation: 'create',
		businessId: byId(businessId),
		firstName: 'Ada',
		lastName: 'Lovelace',
		...extra,
	};
}

/** The requests the sandbox saw for one path, in order. */
export function requestsTo(sandbox: Sandbox, path: string) {
	return sandbox.requests.filter((request) => request.path === path);
}

/**
 * One sandbox for a describe block: started before its first test and closed after its last.
 * Before each test its request log is cleared, its faults and onRequest hook removed, and, when
 * `customers` is given, its customer list seeded afresh with that many. `use` receives it.
 */
export function useSandbox(
	options: SandboxOptions,
	each: { customers?: number },
	use: (sandbox: Sandbox) => void,
): void {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox(options);
		use(sandbox);
	});
	afterAll(async () => await sandbox?.close());
	beforeEach(() => {
		sandbox!.clearLog();
		sandbox!.resetFaults();
		sandbox!.onRequest = undefined;
		if (each.customers !== undefined) sandbox!.seedCustomers(each.customers);
	});
}

/** A port on 127.0.0.1 where nothing listens: bound once, then released. */
export async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

/** The node's message for a request made for `what` (its "Get business") that failed. */
export function failed(what: string, message: string): string {
	return `${what} failed: ${message}`;
}

/** The node's message for an HTTP reply it could not use; `after`, what follows the status. */
export function answered(what: string, status: number, after?: string): string {
	return failed(what, [API_ANSWERED, status, after].filter((part) => part !== undefined).join(' '));
}

/** What an echoing API replies. */
export interface Echo {
	status: number;
	body: string;
	/** application/json unless given. */
	type?: string;
	headers?: Record<string, string>;
}

/** An Answer that replies what `reply` makes of the API key each request carries. */
export function echoing(reply: (key: string, request: IncomingMessage) => Echo): Answer {
	return (request, url, response) => {
		const key = String(request.headers['x-api-key'] ?? '');
		const { status, body, type = 'application/json', headers } = reply(key, request);
		return always(status, body, type, headers)(request, url, response);
	};
}

/** The user:password a request's basic Authorization header carries, decoded. */
export function basicAuthOf(request: IncomingMessage): string {
	const encoded = String(request.headers.authorization ?? '').replace(/^Basic /, '');
	return Buffer.from(encoded, 'base64').toString();
}
