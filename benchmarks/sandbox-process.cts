/**
 * The sandbox API server in a process of its own, driven by bench.cts over IPC.
 *
 * Why a separate process: the benchmark measures the client (the node, or a bare fetch loop). In
 * one process the server's own allocations and garbage collection would land in the client's
 * memory figures, and its CPU work would compete with the client's on the same event loop. Here
 * it has its own thread and heap, and both clients face the very same server.
 */
import { startSandbox, type Faults, type Sandbox } from '../test/sandbox/server.cjs';

/** What bench.cts may ask; every request is answered with one SandboxReply. */
export type SandboxCommand =
	| { type: 'seed'; customers: number }
	| { type: 'append'; customers: number }
	| { type: 'remove'; index: number }
	| { type: 'insert'; index: number }
	| { type: 'takeCount' }
	| { type: 'latency'; ms: number }
	| { type: 'faults'; faults: Faults }
	| { type: 'countCustomers' }
	| { type: 'close' };

export type SandboxReply =
	| {
			type: 'ready';
			url: string;
			apiKey: string;
			organizationId: string;
			businessId: string;
	  }
	| { type: 'seeded'; customers: number }
	| { type: 'changed'; customers: number }
	| { type: 'count'; requests: number }
	| { type: 'latencySet'; ms: number }
	| { type: 'faultsSet' }
	| { type: 'customers'; customers: number }
	| { type: 'closed' };

function send(reply: SandboxReply): void {
	process.send?.(reply);
}

async function main(): Promise<void> {
	// The log keeps every request with its headers and body: at 100,000 customers that is
	// memory and time the server should not spend, so requests are only counted.
	const sandbox: Sandbox = await startSandbox({
		businesses: 3,
		customers: 0,
		log: false,
		rateLimit: false,
	});
	let requests = 0;
	sandbox.onRequest = () => {
		requests++;
	};

	process.on('message', (command: SandboxCommand) => {
		switch (command.type) {
			case 'seed':
				sandbox.seedCustomers(command.customers);
				send({ type: 'seeded', customers: sandbox.customers.length });
				break;
			case 'append':
				sandbox.addCustomers(command.customers);
				send({ type: 'changed', customers: sandbox.customers.length });
				break;
			case 'remove':
				sandbox.customers.splice(command.index, 1);
				send({ type: 'changed', customers: sandbox.customers.length });
				break;
			case 'insert':
				sandbox.addCustomers(1, { at: command.index });
				send({ type: 'changed', customers: sandbox.customers.length });
				break;
			case 'latency':
				sandbox.setFaults(command.ms > 0 ? { slow: { delayMs: command.ms } } : {});
				send({ type: 'latencySet', ms: command.ms });
				break;
			case 'faults':
				sandbox.setFaults(command.faults);
				send({ type: 'faultsSet' });
				break;
			case 'countCustomers':
				send({ type: 'customers', customers: sandbox.customers.length });
				break;
			case 'takeCount':
				send({ type: 'count', requests });
				requests = 0;
				break;
			case 'close':
				void sandbox.close().then(() => {
					send({ type: 'closed' });
					process.disconnect();
				});
				break;
		}
	});

	send({
		type: 'ready',
		url: sandbox.url,
		apiKey: sandbox.apiKey,
		organizationId: sandbox.organizationId,
		businessId: sandbox.businesses[0].id,
	});
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
