import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, type WorkflowJson } from './n8n';

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
