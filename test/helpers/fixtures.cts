import { createServer, type AddressInfo } from 'node:net';
import type { INodeParameters } from 'n8n-workflow';
import { startSandbox, type Sandbox, type SandboxOptions } from '../sandbox/server.cjs';
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
