/**
 * `npm run test:docs`: what the documentation promises about itself.
 *
 * 1. Every relative link and #anchor in README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md
 *    resolves, with GitHub's rules for heading anchors; links into other Markdown files (such as
 *    benchmarks/results.md#…) are followed too.
 * 2. Every link to this repository in nodes/ and credentials/ (documentationUrl, the codex files'
 *    documentation links) lands on a file and an anchor that exist.
 * 3. Every workflow in examples/ is well formed, and its Business CRM nodes use a type version,
 *    parameter names and option values that exist in the node's current description, loaded from
 *    the TypeScript source as the in-process tests load it.
 * 4. README.md reads in five minutes: at most README_MAX_LINES lines, "Your first customer" by
 *    line FIRST_CUSTOMER_BY_LINE, and none of README_JARGON (words only this project uses), no
 *    formula and no path of a test file.
 *
 * Run by `npm run test:docs` (test/docs/docs.test.cts, under jest, which resolves the node's
 * TypeScript source before its codex file of the same name). Needs no build and no n8n.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { INodeProperties, INodePropertyCollection, INodeType } from 'n8n-workflow';
import { minVersion, satisfies } from 'semver';
import { loadNodeType } from '../helpers/harness.cjs';
import { loadTriggerType } from '../helpers/poll-harness.cjs';
import { nodeFields } from '../../nodes/BusinessCrm/resources/customer/create/fields';
import { FIND_HINT } from '../../nodes/BusinessCrm/resources/customer/findHint';

const ROOT = resolve(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/n8n-nodes-business-crm/n8n-nodes-business-crm';

/**
 * Pages other branches add (the version matrix, n8n's verification checklist). Until they are
 * merged, a link to them is reported as pending, not as broken; once the file exists it is
 * checked like any other.
 */
const PENDING_PAGES = new Map([
	['docs/compatibility.md', 'the tested n8n versions and the minimum version'],
	['docs/verification.md', "the checklist for n8n's community-node verification"],
]);

/** n8n's own nodes the examples use, with the type versions they are written for. */
const BASE_NODES: Record<string, number[]> = {
	'n8n-nodes-base.manualTrigger': [1],
	'n8n-nodes-base.code': [2],
	'n8n-nodes-base.noOp': [1],
	'n8n-nodes-base.if': [2],
	'n8n-nodes-base.limit': [1],
	'n8n-nodes-base.convertToFile': [1.1],
	'n8n-nodes-base.set': [3.4],
	'n8n-nodes-base.summarize': [1.1],
	'n8n-nodes-base.stickyNote': [1],
	'@n8n/n8n-nodes-langchain.mcpTrigger': [2],
	'@n8n/n8n-nodes-langchain.agent': [3.1],
	'@n8n/n8n-nodes-langchain.lmChatOpenAi': [1.3],
};

let problems: string[] = [];
let pending = new Set<string>();
const problem = (where: string, text: string) => problems.push(`${where}: ${text}`);

// ---------------------------------------------------------------------------------------------
// Markdown: headings, anchors, links

/** Text without fenced code blocks (their lines become empty, so line numbers stay right). */
function withoutCodeBlocks(text: string): string[] {
	let fence: string | undefined;
	return text.split('\n').map((line) => {
		const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
		if (fence !== undefined) {
			if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
				fence = undefined;
			}
			return '';
		}
		if (marker !== undefined) {
			fence = marker;
			return '';
		}
		return line;
	});
}

/** GitHub's anchor for a heading: its text in lower case, punctuation dropped, spaces to '-'. */
export function githubSlug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
		.replace(/<[^>]+>/g, '') // inline HTML
		.replace(/[`*]/g, '') // code and emphasis markers (underscores are kept, as on GitHub)
		.trim()
		.toLowerCase();
	return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** Every anchor a Markdown file offers: its headings (repeats get -1, -2, …) and <a id/name>. */
function anchorsOf(file: string): Set<string> {
	const cached = anchorCache.get(file);
	if (cached) return cached;
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of withoutCodeBlocks(readFileSync(file, 'utf8'))) {
		const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
		if (heading !== undefined) {
			const slug = githubSlug(heading);
			const count = seen.get(slug) ?? 0;
			seen.set(slug, count + 1);
			anchors.add(count === 0 ? slug : `${slug}-${count}`);
		}
		for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
	}
	anchorCache.set(file, anchors);
	return anchors;
}

/** Checks that `target` (a repository path, maybe with #anchor) exists; `where` names the link. */
function checkTarget(where: string, path: string, anchor: string | undefined): void {
	const shown = relative(ROOT, path) || '.';
	if (!existsSync(path)) {
		const note = PENDING_PAGES.get(shown);
		if (note !== undefined) {
			pending.add(`${shown} (${note})`);
			return;
		}
		problem(where, `links to ${shown}, which does not exist`);
		return;
	}
	if (anchor === undefined || anchor === '') return;
	const file = statSync(path).isDirectory() ? join(path, 'README.md') : path;
	if (!file.endsWith('.md') || !existsSync(file)) {
		problem(where, `links to #${anchor} in ${shown}, which is not a Markdown page`);
		return;
	}
	if (!anchorsOf(file).has(decodeURIComponent(anchor))) {
		problem(where, `links to ${shown}#${anchor}, but ${relative(ROOT, file)} has no such heading`);
	}
}

/** Where a link to this repository on GitHub points inside it: a path and an anchor. */
function repositoryTarget(url: string): { path: string; anchor?: string } | undefined {
	if (!url.startsWith(REPOSITORY)) return undefined;
	const [beforeHash, anchor] = url.slice(REPOSITORY.length).split('#', 2);
	const [rest] = beforeHash.split('?', 1);
	const blob = /^\/(?:blob|tree)\/[^/]+\/(.*)$/.exec(rest);
	if (blob) return { path: join(ROOT, blob[1]), anchor };
	if (rest === '' || rest === '/') return { path: join(ROOT, 'README.md'), anchor };
	return undefined;
}

function checkMarkdown(file: string): void {
	const lines = withoutCodeBlocks(readFileSync(file, 'utf8'));
	lines.forEach((raw, index) => {
		const line = raw.replace(/`[^`]*`/g, ''); // links inside inline code are not links
		const where = `${relative(ROOT, file)}:${index + 1}`;
		for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
			const target = match[1];
			if (/^(mailto|tel):/i.test(target)) continue;
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
				const inRepository = repositoryTarget(target);
				if (inRepository) checkTarget(where, inRepository.path, inRepository.anchor);
				continue;
			}
			const [path, anchor] = target.split('#', 2);
			checkTarget(where, path === '' ? file : resolve(dirname(file), decodeURI(path)), anchor);
		}
	});
}

// ---------------------------------------------------------------------------------------------
// README.md: for people who install the node, read in five minutes

/** The README's longest length, in lines (as `wc -l` counts them). */
export const README_MAX_LINES = 300;
/** The README's walk-through, and the line by which it must start (the first screen). */
export const FIRST_CUSTOMER_HEADING = '## Your first customer';
export const FIRST_CUSTOMER_BY_LINE = 60;

/**
 * Words only this project uses (its code, tests and issues), which a reader of the README does
 * not know. None may be in README.md: case-insensitive, each as a whole word or phrase ("road"
 * does not match "broad"), a phrase also when it breaks across lines.
 */
export const README_JARGON: readonly string[] = [
	'node run',
	'list read',
	'road',
	'RoutingNode',
	'declarative',
	'fingerprint',
	'anchored',
	'the pin',
];

/** A formula such as ceil((N-1)/99): the README says it in words ("one check per 99 customers"). */
const FORMULA = /\b(?:ceil|floor|max|min|log2?|sqrt)\s*\(/gi;
/** A path of a test file or of the test folder: where a fact was tested belongs in docs/. */
const TEST_PATH = /(?<![\w./-])test\/(?:[\w./-]*[\w/])?|[\w-]+\.test\.[cm]?[jt]s\b/g;

function lineAt(text: string, index: number): number {
	return text.slice(0, index).split('\n').length;
}

/** Each whole-word (or whole-phrase) occurrence of `words` in `text`, case-insensitive, by line. */
export function wordsIn(
	text: string,
	words: readonly string[],
): Array<{ word: string; line: number; found: string }> {
	const found: Array<{ word: string; line: number; found: string }> = [];
	for (const word of words) {
		const phrase = word
			.trim()
			.split(/\s+/)
			.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
			.join('\\s+');
		const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${phrase}(?![\\p{L}\\p{N}_])`, 'giu');
		for (const match of text.matchAll(pattern)) {
			found.push({ word, line: lineAt(text, match.index ?? 0), found: match[0] });
		}
	}
	return found.sort((a, b) => a.line - b.line);
}

function checkReadme(file: string): void {
	const where = relative(ROOT, file);
	const text = readFileSync(file, 'utf8');
	const lines = text.split('\n');
	const count = text.endsWith('\n') ? lines.length - 1 : lines.length;
	if (count > README_MAX_LINES) {
		problem(
			where,
			`has ${count} lines, more than ${README_MAX_LINES}: move details into docs/, one link away`,
		);
	}
	const heading = withoutCodeBlocks(text).findIndex(
		(line) => line.trimEnd() === FIRST_CUSTOMER_HEADING,
	);
	if (heading === -1) {
		problem(where, `has no heading "${FIRST_CUSTOMER_HEADING}"`);
	} else if (heading + 1 > FIRST_CUSTOMER_BY_LINE) {
		problem(
			`${where}:${heading + 1}`,
			`"${FIRST_CUSTOMER_HEADING}" starts at line ${heading + 1}, after line ${FIRST_CUSTOMER_BY_LINE}: before it, only how to install and the three credential fields`,
		);
	}
	checkTroubleshooting(where, text);
	checkNodeMinimum(where, text);
	checkPlainWords(file);
}

/** Where the README states the Node.js a clone needs: "Node.js 20.19 or later". */
const BUILD_NODE = /Node\.js (\d+\.\d+) or later/;

/**
 * Packages of the lock that ask for a newer Node.js than the build needs, and why the build does
 * not need it: n8n's own packages bring them, and neither the build nor the tests on the oldest
 * Node.js load them (npm ci warns about them, EBADENGINE, and installs them).
 */
export const NEWER_NODE_UNUSED: Record<string, string> = {
	'isolated-vm': "n8n's expression runtime (n8n-workflow 2.x); not loaded by the build",
	'content-type': "the MCP SDK's web server (express 5), used by no script of ours",
};

/**
 * The Node.js minimum the README states for a clone is package.json's `engines` floor, and every
 * package in the lock accepts it but those listed above.
 */
function checkNodeMinimum(where: string, text: string): void {
	const stated = BUILD_NODE.exec(text)?.[1];
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		engines?: { node?: string };
	};
	const floor = minVersion(pkg.engines?.node ?? '')?.version;
	if (stated === undefined || floor === undefined || `${stated}.0` !== floor) {
		problem(
			where,
			`states Node.js ${stated ?? '(none)'} for a clone, but package.json's engines say ${pkg.engines?.node}: make them one`,
		);
		return;
	}
	const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
		packages: Record<string, { engines?: Record<string, string> | string[] }>;
	};
	for (const [path, entry] of Object.entries(lock.packages)) {
		const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
		const name = path.split('node_modules/').at(-1) ?? path;
		if (range === undefined || name in NEWER_NODE_UNUSED) continue;
		if (!satisfies(floor, range, { includePrerelease: true })) {
			problem(
				where,
				`states Node.js ${stated}, but ${name} (${path}) asks for ${range}: raise the minimum, or say in NEWER_NODE_UNUSED why the build does not need it`,
			);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// docs/operations.md: the tables a new field of Create must appear in

export const RECORD_FIELDS_HEADING = '## The fields of a customer record';
export const CREATE_HEADING = '## Customer › Create';

/**
 * The first table in the section under `heading` (up to the next `## `): its header's cells and
 * its rows', each as its cells; none when the section has no table.
 */
function tableUnder(lines: string[], heading: string): { header: string[]; rows: string[][] } {
	const start = lines.findIndex((line) => line.trimEnd() === heading);
	const found: string[][] = [];
	for (const line of start === -1 ? [] : lines.slice(start + 1)) {
		if (line.startsWith('## ')) break;
		if (line.startsWith('|'))
			found.push(
				line
					.split('|')
					.slice(1, -1)
					.map((cell) => cell.trim()),
			);
		else if (found.length > 0) break;
	}
	// The second line is the separator row.
	return { header: found[0] ?? [], rows: found.slice(2) };
}

/**
 * Every field the Create body can hold has a row in the record's field table, and every option of
 * Create's Additional Fields a row in the Create parameter table: a new field in create/fields.ts
 * fails here until the table says what the node does with it.
 */
function checkFieldTables(): void {
	const file = join(ROOT, 'docs', 'operations.md');
	const where = relative(ROOT, file);
	const lines = withoutCodeBlocks(readFileSync(file, 'utf8'));
	const recordRows = tableUnder(lines, RECORD_FIELDS_HEADING).rows.map((row) => row[0]);
	for (const name of Object.keys(nodeFields)) {
		if (!recordRows.includes(`\`${name}\``)) {
			problem(
				where,
				`"${RECORD_FIELDS_HEADING}" has no row for \`${name}\`, a field of the Create body (create/fields.ts)`,
			);
		}
	}
	const createRows = tableUnder(lines, CREATE_HEADING).rows.map((row) => row[1] ?? '');
	const additional = PACKAGE_NODES[
		'n8n-nodes-business-crm.businessCrm'
	].description.properties.find(
		(property) =>
			property.name === 'additionalFields' &&
			property.displayOptions?.show?.operation?.includes('create'),
	);
	for (const option of (additional?.options ?? []) as INodeProperties[]) {
		const name = `additionalFields.${option.name}`;
		if (!createRows.some((cell) => cell.startsWith(`\`${name}`))) {
			problem(
				where,
				`"${CREATE_HEADING}" has no row for Additional Fields › ${option.displayName} (\`${name}\`)`,
			);
		}
	}
}

export const TROUBLESHOOTING_HEADING = '## Troubleshooting';
/** How many errors the README's Troubleshooting opens with, each with its fix in one line. */
export const TOP_ERRORS = 5;

/** Troubleshooting opens with one table: the errors met most, an Error and a Fix column each. */
function checkTroubleshooting(where: string, text: string): void {
	const lines = withoutCodeBlocks(text);
	const start = lines.findIndex((line) => line.trimEnd() === TROUBLESHOOTING_HEADING);
	if (start === -1) {
		problem(where, `has no heading "${TROUBLESHOOTING_HEADING}"`);
		return;
	}
	const { header, rows } = tableUnder(lines, TROUBLESHOOTING_HEADING);
	if (header.join('|') !== 'Error|Fix' || rows.length !== TOP_ERRORS) {
		problem(
			`${where}:${start + 1}`,
			`"${TROUBLESHOOTING_HEADING}" must open with a table "| Error | Fix |" of the ${TOP_ERRORS} errors met most, one line each; the rest go to docs/errors-and-retries.md`,
		);
	}
}

/**
 * Pages in docs/ written for people who install the node; the others are for n8n's reviewers
 * (verification.md). Users' pages keep to the README's plain words too.
 */
export const USER_DOCS_EXCEPT = ['verification.md'];

/** No word only this project uses, no formula, no test file's path (README.md and users' docs/). */
function checkPlainWords(file: string): void {
	const where = relative(ROOT, file);
	const text = withoutCodeBlocks(readFileSync(file, 'utf8')).join('\n');
	for (const { line, found } of wordsIn(text, README_JARGON)) {
		problem(
			`${where}:${line}`,
			`"${found.replace(/\s+/g, ' ')}" is a word only this project uses: say it in plain words`,
		);
	}
	for (const match of text.matchAll(FORMULA)) {
		problem(
			`${where}:${lineAt(text, match.index ?? 0)}`,
			`has a formula (${match[0]}…): say it in words, e.g. "one check per 99 customers"`,
		);
	}
	for (const match of text.matchAll(TEST_PATH)) {
		problem(
			`${where}:${lineAt(text, match.index ?? 0)}`,
			`names a test file (${match[0]}): where a fact was tested belongs in CONTRIBUTING.md, not in users' pages`,
		);
	}
}

// ---------------------------------------------------------------------------------------------
// Links in the shipped code (documentationUrl, codex files)

function sourceFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return /\.(ts|json)$/.test(entry.name) ? [path] : [];
	});
}

// ---------------------------------------------------------------------------------------------
// Example workflows

interface WorkflowNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters?: Record<string, unknown>;
	credentials?: Record<string, unknown>;
}

let PACKAGE_NODES: Record<string, INodeType> = {};

/**
 * The tool variant n8n makes of a `usableAsTool` node (`<name>Tool`): the same parameters plus the
 * two n8n adds (n8n 2.8.4, cli tool-generation `convertNodeToAiTool`).
 */
function asTool(nodeType: INodeType): INodeType {
	const toolParameters: INodeProperties[] = [
		{
			displayName: 'Tool Description',
			name: 'descriptionType',
			type: 'options',
			options: [
				{ name: 'Set Automatically', value: 'auto' },
				{ name: 'Set Manually', value: 'manual' },
			],
			default: 'auto',
		},
		{
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: '',
			displayOptions: { show: { descriptionType: ['manual'] } },
		},
	];
	const { description } = nodeType;
	return {
		...nodeType,
		description: { ...description, properties: [...toolParameters, ...description.properties] },
	};
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/** Whether a property is shown, given the root parameters and those of its own level. */
function shown(
	property: INodeProperties,
	root: Record<string, unknown>,
	level: Record<string, unknown>,
	siblings: INodeProperties[],
	version: number,
): boolean {
	const valueOf = (key: string) => {
		if (key === '@version') return version;
		const onRoot = key.startsWith('/');
		const name = onRoot ? key.slice(1) : key;
		const values = onRoot ? root : level;
		if (name in values) return values[name];
		return siblings.find((p) => p.name === name)?.default;
	};
	const { show, hide } = property.displayOptions ?? {};
	for (const [key, allowed] of Object.entries(show ?? {})) {
		if (!(allowed as unknown[]).includes(valueOf(key))) return false;
	}
	for (const [key, refused] of Object.entries(hide ?? {})) {
		if ((refused as unknown[]).includes(valueOf(key))) return false;
	}
	return true;
}

function checkValue(
	where: string,
	property: INodeProperties,
	value: unknown,
	root: Record<string, unknown>,
	version: number,
): void {
	if (isExpression(value)) return;
	switch (property.type) {
		case 'options': {
			const values = (property.options ?? []).map((option) => (option as { value: unknown }).value);
			if (!values.includes(value)) {
				problem(
					where,
					`${JSON.stringify(value)} is not one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
				);
			}
			return;
		}
		case 'multiOptions': {
			const values = (property.options ?? []).map((option) => (option as { value: unknown }).value);
			for (const item of Array.isArray(value) ? value : [value]) {
				if (!values.includes(item)) problem(where, `${JSON.stringify(item)} is not an option`);
			}
			return;
		}
		case 'boolean':
			if (typeof value !== 'boolean')
				problem(where, `${JSON.stringify(value)} is not true or false`);
			return;
		case 'number':
			if (typeof value !== 'number') problem(where, `${JSON.stringify(value)} is not a number`);
			return;
		case 'resourceLocator': {
			const locator = value as { __rl?: unknown; mode?: unknown; value?: unknown };
			const modes = (property.modes ?? []).map((mode) => mode.name);
			if (typeof value !== 'object' || value === null || locator.__rl !== true) {
				problem(where, 'is not a resource locator ({"__rl": true, "mode", "value"})');
			} else if (!modes.includes(String(locator.mode))) {
				problem(where, `mode ${JSON.stringify(locator.mode)} is not one of ${modes.join(', ')}`);
			}
			return;
		}
		case 'collection':
			checkLevel(where, (property.options ?? []) as INodeProperties[], value, root, version);
			return;
		case 'fixedCollection': {
			if (typeof value !== 'object' || value === null) {
				problem(where, 'is not an object');
				return;
			}
			const groups = (property.options ?? []) as INodePropertyCollection[];
			for (const [name, entries] of Object.entries(value)) {
				const group = groups.find((g) => g.name === name);
				if (!group) {
					problem(`${where}.${name}`, `no such group (${groups.map((g) => g.name).join(', ')})`);
					continue;
				}
				const list = property.typeOptions?.multipleValues ? entries : [entries];
				if (!Array.isArray(list)) {
					problem(`${where}.${name}`, 'should be a list');
					continue;
				}
				list.forEach((entry, i) =>
					checkLevel(`${where}.${name}[${i}]`, group.values, entry, root, version),
				);
			}
			return;
		}
		default:
			return;
	}
}

function checkLevel(
	where: string,
	properties: INodeProperties[],
	values: unknown,
	root: Record<string, unknown>,
	version: number,
): void {
	if (typeof values !== 'object' || values === null || Array.isArray(values)) {
		problem(where, 'is not an object of parameters');
		return;
	}
	const level = values as Record<string, unknown>;
	for (const [name, value] of Object.entries(level)) {
		const candidates = properties.filter((p) => p.name === name);
		if (candidates.length === 0) {
			problem(`${where}.${name}`, "no such parameter in the node's current version");
			continue;
		}
		const visible = candidates.filter((p) => shown(p, root, level, properties, version));
		if (visible.length === 0) {
			problem(`${where}.${name}`, 'is not shown for this resource and operation');
			continue;
		}
		// Several definitions may share a name (one per operation): one must accept the value.
		const failures = visible.map((property) => {
			const before = problems.length;
			checkValue(`${where}.${name}`, property, value, root, version);
			return problems.splice(before);
		});
		if (failures.every((found) => found.length > 0)) problems.push(...failures[0]);
	}
}

function checkExample(file: string): void {
	const where = `examples/${file}`;
	let workflow: { name?: unknown; nodes?: WorkflowNode[]; connections?: Record<string, unknown> };
	try {
		workflow = JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8'));
	} catch (error) {
		problem(where, `is not JSON: ${(error as Error).message}`);
		return;
	}
	if (typeof workflow.name !== 'string' || !Array.isArray(workflow.nodes)) {
		problem(where, 'has no name or no nodes');
		return;
	}
	const names = new Set(workflow.nodes.map((node) => node.name));
	if (names.size !== workflow.nodes.length) problem(where, 'has two nodes with the same name');
	if (!workflow.nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote')) {
		problem(where, 'has no sticky note saying what it does and what to set');
	}
	for (const [from, outputs] of Object.entries(workflow.connections ?? {})) {
		if (!names.has(from)) problem(where, `connects from "${from}", which is not a node`);
		for (const connection of JSON.stringify(outputs).matchAll(/"node":"((?:[^"\\]|\\.)*)"/g)) {
			const to = JSON.parse(`"${connection[1]}"`) as string;
			if (!names.has(to)) problem(where, `connects to "${to}", which is not a node`);
		}
	}
	for (const node of workflow.nodes) {
		const at = `${where} › ${node.name}`;
		const base = BASE_NODES[node.type];
		if (base !== undefined) {
			if (!base.includes(node.typeVersion)) {
				problem(
					at,
					`${node.type} version ${node.typeVersion} is not one the docs check knows (${base.join(', ')})`,
				);
			}
			continue;
		}
		const nodeType = PACKAGE_NODES[node.type];
		if (!nodeType) {
			problem(at, `unknown node type ${node.type}`);
			continue;
		}
		const { description } = nodeType;
		const versions = Array.isArray(description.version)
			? description.version
			: [description.version];
		if (!versions.includes(node.typeVersion)) {
			problem(at, `typeVersion ${node.typeVersion}; the node has ${versions.join(', ')}`);
		}
		for (const name of Object.keys(node.credentials ?? {})) {
			if (!(description.credentials ?? []).some((credential) => credential.name === name)) {
				problem(at, `credential type ${name} is not the node's`);
			}
		}
		const parameters = node.parameters ?? {};
		checkLevel(at, description.properties, parameters, parameters, node.typeVersion);
	}
}

/**
 * Texts the editor shows that the docs quote, by the name the marker gives: a quote is
 * `<!-- screen text: NAME -->` followed by a block quote, which must be the node's text word for
 * word (its <b> as **), so that the quote cannot drift from the screen.
 */
export const SCREEN_TEXTS: Record<string, string> = { FIND_HINT };

const SCREEN_TEXT_MARKER = /<!-- screen text: (\w+) -->\n((?:>.*\n?)+)/g;

const folded = (text: string) => text.replace(/\s+/g, ' ').trim();

function checkScreenTexts(file: string): void {
	const text = readFileSync(file, 'utf8');
	for (const match of text.matchAll(SCREEN_TEXT_MARKER)) {
		const where = `${relative(ROOT, file)}:${lineAt(text, match.index ?? 0)}`;
		const shown = SCREEN_TEXTS[match[1]];
		if (shown === undefined) {
			problem(where, `quotes ${match[1]}, which is not among the screen texts the check knows`);
			continue;
		}
		const quoted = folded(match[2].replace(/^> ?/gm, ''));
		const expected = folded(shown.replace(/<\/?b>/g, '**'));
		if (quoted !== expected)
			problem(where, `quotes ${match[1]} as "${quoted}"; the editor shows "${expected}"`);
	}
}

export interface DocsCheck {
	/** What was checked, in words. */
	checked: string;
	problems: string[];
	/** Linked pages another branch adds, not here yet. */
	pending: string[];
}

export function checkDocs(): DocsCheck {
	problems = [];
	pending = new Set<string>();
	anchorCache.clear();
	PACKAGE_NODES = {
		'n8n-nodes-business-crm.businessCrm': loadNodeType(),
		'n8n-nodes-business-crm.businessCrmTrigger': loadTriggerType(),
	};
	PACKAGE_NODES['n8n-nodes-business-crm.businessCrmTool'] = asTool(
		PACKAGE_NODES['n8n-nodes-business-crm.businessCrm'],
	);

	const markdownFiles = [
		'README.md',
		'CONTRIBUTING.md',
		'CHANGELOG.md',
		...readdirSync(join(ROOT, 'docs'))
			.filter((name) => name.endsWith('.md'))
			.map((name) => `docs/${name}`),
	].map((name) => join(ROOT, name));
	for (const file of markdownFiles) {
		if (existsSync(file)) {
			checkMarkdown(file);
			checkScreenTexts(file);
		} else problem(relative(ROOT, file), 'is missing');
	}
	if (existsSync(join(ROOT, 'README.md'))) checkReadme(join(ROOT, 'README.md'));
	checkFieldTables();
	for (const name of readdirSync(join(ROOT, 'docs'))) {
		if (name.endsWith('.md') && !USER_DOCS_EXCEPT.includes(name)) {
			checkPlainWords(join(ROOT, 'docs', name));
		}
	}

	let codeLinks = 0;
	for (const file of [
		...sourceFiles(join(ROOT, 'nodes')),
		...sourceFiles(join(ROOT, 'credentials')),
	]) {
		const lines = readFileSync(file, 'utf8').split('\n');
		lines.forEach((line, index) => {
			for (const match of line.matchAll(/https:\/\/github\.com\/[^\s'"`)]+/g)) {
				const where = `${relative(ROOT, file)}:${index + 1}`;
				const target = repositoryTarget(match[0]);
				if (!target) {
					problem(where, `links to ${match[0]}, which is not in ${REPOSITORY}`);
					continue;
				}
				codeLinks++;
				checkTarget(where, target.path, target.anchor);
			}
		});
	}
	if (codeLinks === 0) problem('nodes/, credentials/', 'no documentation link found');

	const examples = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.json'));
	for (const file of examples) checkExample(file);

	return {
		checked: `${markdownFiles.length} Markdown files, ${codeLinks} links in nodes/ and credentials/, ${examples.length} example workflows`,
		problems,
		pending: [...pending],
	};
}
