import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../sandbox/server.cjs';
import {
	createUserFolder,
	e2eTarget,
	ensureN8n,
	importCredentials,
	installPackage,
	packPackage,
	REPO_ROOT,
	type Credential,
	type CredentialInput,
	type EnsureN8nOptions,
	type UserFolder,
	type WorkflowJson,
} from './n8n.cjs';

/** The credential id the example workflows point at; the e2e suite and the demo import it. */
export const EXAMPLE_CREDENTIAL_ID = 'BusinessCrmExample';

/** An example workflow from examples/, as a user would import it. */
export function exampleWorkflow(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as WorkflowJson;
}

type Node = Record<string, unknown> & { name: string; parameters?: Record<string, unknown> };

/** A copy of a workflow with one node's fields changed (e.g. parameters or onError). */
export function withNode(
	workflow: WorkflowJson,
	name: string,
	change: Partial<Node>,
): WorkflowJson {
	if (!workflow.nodes.some((node) => (node as Node).name === name)) {
		throw new Error(`no node "${name}" in ${workflow.name}`);
	}
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			(node as Node).name === name ? { ...node, ...change } : node,
		),
	};
}

/**
 * Customer › Create's parameters for input rows whose json has firstName, lastName and email, as
 * an import workflow sets them; `extra` adds to them (Skip Existing, Preview Only, ...).
 */
export function createFromRows(businessId: string, extra: Record<string, unknown> = {}) {
	return {
		resource: 'customer',
		operation: 'create',
		businessId: { __rl: true, mode: 'id', value: businessId },
		firstName: '={{ $json.firstName }}',
		lastName: '={{ $json.lastName }}',
		additionalFields: { email: '={{ $json.email }}' },
		...extra,
	};
}

/** The Business CRM credential for the sandbox, under the id the examples use. */
export function sandboxCredential(sandbox: Sandbox): CredentialInput {
	return {
		id: EXAMPLE_CREDENTIAL_ID,
		name: 'Business CRM account',
		type: 'businessCrmApi',
		data: {
			baseUrl: sandbox.url,
			apiKey: sandbox.apiKey,
			organizationId: sandbox.organizationId,
		},
	};
}

export interface PreparedN8n {
	/** The n8n version under test (e2eTarget). */
	version: string;
	folder: UserFolder;
	/** The Business CRM credential for the sandbox, under the id the examples use. */
	credential: Credential;
	/** Any further credentials asked for, in order. */
	others: Credential[];
}

/**
 * A fresh n8n user folder with this package packed and installed as a community package, and a
 * Business CRM credential pointing at the sandbox: what the suite, the demo, the benchmark and
 * `npm run editor` start from. Installs n8n into .cache on first use. `options.target` replaces
 * e2eTarget() (the n8n version and Node.js to use); `options.port` fixes the editor's port.
 */
export async function prepareN8n(
	sandbox: Sandbox,
	others: CredentialInput[] = [],
	options: { target?: EnsureN8nOptions; port?: number } = {},
): Promise<PreparedN8n> {
	const target = options.target ?? (await e2eTarget());
	const folder = await createUserFolder(await ensureN8n(target), { port: options.port });
	await installPackage(folder, await packPackage());
	const [credential, ...rest] = await importCredentials(folder, [
		sandboxCredential(sandbox),
		...others,
	]);
	return { version: target.version ?? '', folder, credential, others: rest };
}
