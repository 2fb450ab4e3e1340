/**
 * `npm run demo`: the package in a real n8n, against the sandbox API, in one command.
 * Starts the sandbox, installs n8n into .cache on the first run (minutes, with progress), installs
 * the packed package as n8n installs a community package, runs examples/demo-business-crm.json
 * with `n8n execute`, prints what happened, and stops everything.
 */
import { startSandbox } from '../sandbox/server.cjs';
import { e2eTarget, executeWorkflow, importWorkflow, nodeOutput } from './n8n.cjs';
import { exampleWorkflow, prepareN8n } from './workflows.cjs';

const CUSTOMERS = '/api/public/v1/customers';

function step(text: string): void {
	process.stderr.write(`• ${text}\n`);
}

async function main(): Promise<number> {
	const started = Date.now();
	step('Starting the sandbox API on 127.0.0.1');
	const sandbox = await startSandbox({ businesses: 5, customers: 240 });
	try {
		const target = await e2eTarget();
		step(
			`Preparing n8n ${target.version} with this package installed (the first run installs n8n into .cache: a few minutes)`,
		);
		const { folder } = await prepareN8n(sandbox);
		try {
			const workflow = exampleWorkflow('demo-business-crm.json');
			const id = await importWorkflow(folder, workflow);
			step(`Running "${workflow.name}" with n8n execute`);
			const result = await executeWorkflow(folder, id);
			if (!result.success || result.run === undefined) {
				const error = result.run?.data.resultData.error;
				console.error(
					`\nThe workflow failed: ${error?.message ?? `n8n exited with ${result.exitCode}`}` +
						(error?.node?.name ? ` (node "${error.node.name}")` : '') +
						`\n${result.stderr.slice(-2000)}`,
				);
				return 1;
			}
			const { run } = result;
			const businesses = nodeOutput(run, 'List Businesses');
			const [business] = nodeOutput(run, 'Get Business');
			const [customer] = nodeOutput(run, 'Add Customer');
			const found = nodeOutput(run, 'Find Customer');
			const customers = nodeOutput(run, 'All Customers');
			const pages = sandbox.requests.filter((request) => request.path === CUSTOMERS);
			const listed = customers.some((c) => c.id === customer.id);

			console.log(`
Business CRM demo: n8n ${target.version}, workflow examples/demo-business-crm.json
  List Businesses  ${businesses.length} businesses: ${businesses.map((b) => b.name).join(', ')}
  Get Business     ${String(business.name)} (${String(business.id)})
  Add Customer     ${String(customer.firstName)} ${String(customer.lastName)} added, id ${String(customer.id)}
  Find Customer    ${found.length} customer with ${String(customer.email)}: ${found.map((c) => String(c.id)).join(', ')}
  All Customers    ${customers.length} customers read with Return All${listed ? ', the new customer among them' : ''} (Find and Get Many read ${pages.length} pages of the list in all)
Done in ${Math.round((Date.now() - started) / 1000)} s; n8n, the sandbox and the temporary n8n folder are gone.`);
			return listed && found.some((c) => c.id === customer.id) ? 0 : 1;
		} finally {
			folder.remove();
		}
	} finally {
		await sandbox.close();
	}
}

main().then(
	(code) => process.exit(code),
	(error: Error) => {
		console.error(`The demo failed: ${error.message}`);
		process.exit(1);
	},
);
