/**
 * Installing the package as users do, through Settings › Community Nodes, in headless Chromium:
 * n8n's own installer (npm pack, unpack, npm install, load without a restart) fetches the packed
 * package from a local registry (registry.cts). Then Update to a newer version published there,
 * and Uninstall. Screenshots go to .test-output/editor-screenshots/community-nodes/.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	createUserFolder,
	e2eTarget,
	ensureN8n,
	packPackage,
	REPO_ROOT,
	rest,
	run,
	setupOwner,
	startN8n,
	type RunningN8n,
	type Session,
	type UserFolder,
} from '../e2e/n8n.cjs';
import { sandboxCredential } from '../e2e/workflows.cjs';
import {
	expandNodeCreatorCategory,
	launchBrowser,
	signIn,
	Steps,
	waitForText,
	type RunningBrowser,
} from './browser.cjs';
import { startRegistry, type LocalRegistry } from './registry.cjs';
import { ACTIONS, NODE_NAME, NO_RESULTS } from './texts.cjs';

const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
	name: string;
	version: string;
};
const NEXT_VERSION = PACKAGE.version.replace(/(\d+)$/, (patch) => String(Number(patch) + 1));
/** Added to the node's description in the newer version, so the editor shows which one it loaded. */
const NEXT_MARKER = `(update test build ${NEXT_VERSION})`;

/**
 * The descriptions of the package's nodes, as built into dist/. The nodes panel shows one of them
 * for the package's entry: n8n 2.8.4 shows the trigger's once the package has one.
 */
const NODE_FILES = [
	['BusinessCrm', 'BusinessCrm.node.js', 'BusinessCrm'],
	['BusinessCrmTrigger', 'BusinessCrmTrigger.node.js', 'BusinessCrmTrigger'],
] as const;

async function nodeDescriptions(): Promise<string[]> {
	const descriptions: string[] = [];
	for (const [folder, file, name] of NODE_FILES) {
		const exported = (await import(path.join(REPO_ROOT, 'dist', 'nodes', folder, file))) as Record<
			string,
			new () => { description: { description: string } }
		>;
		descriptions.push(new exported[name]().description.description);
	}
	return descriptions;
}

/** Any of the package's node descriptions, exactly, with the marker of the newer version or not. */
async function shownDescription(next: boolean): Promise<RegExp> {
	const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const either = (await nodeDescriptions()).map(escape).join('|');
	return new RegExp(`^(${either})${next ? ` ${escape(NEXT_MARKER)}` : ''}$`);
}

/**
 * The packed package with the version bumped and NEXT_MARKER in the nodes' descriptions, packed
 * again from a temp copy (the repo is not touched).
 */
async function packNextVersion(tarball: string, workDir: string): Promise<string> {
	const copy = path.join(workDir, 'next');
	fs.mkdirSync(copy, { recursive: true });
	const untar = await run('tar', ['-xzf', tarball, '-C', copy, '--strip-components=1']);
	if (untar.code !== 0) throw new Error(`tar failed: ${untar.stderr}`);
	const manifestPath = path.join(copy, 'package.json');
	const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
	fs.writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: NEXT_VERSION }, null, 2));

	const descriptions = await nodeDescriptions();
	NODE_FILES.forEach(([folder, file], index) => {
		const nodeFile = path.join(copy, 'dist', 'nodes', folder, file);
		const description = descriptions[index];
		const code = fs.readFileSync(nodeFile, 'utf8');
		if (!code.includes(description)) throw new Error(`"${description}" is not in ${nodeFile}`);
		fs.writeFileSync(nodeFile, code.replace(description, `${description} ${NEXT_MARKER}`));
	});

	const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', workDir], {
		cwd: copy,
	});
	if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
	return path.join(workDir, `${PACKAGE.name}-${NEXT_VERSION}.tgz`);
}

describe('the Community Nodes panel', () => {
	let sandbox: Sandbox;
	let registry: LocalRegistry;
	let folder: UserFolder;
	let n8n: RunningN8n;
	let session: Session;
	let browser: RunningBrowser;
	let page: Page;
	let steps: Steps;
	let workDir: string;
	let tarball: string;

	beforeAll(async () => {
		workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'editor-community-'));
		sandbox = await startSandbox({ businesses: 5, customers: 20 });
		registry = await startRegistry();
		tarball = await packPackage(REPO_ROOT, workDir);
		await registry.publish(tarball);
		folder = await createUserFolder(await ensureN8n(await e2eTarget()), {
			env: {
				...registry.n8nEnv,
				PATH: `${registry.npmWrapperDir}${path.delimiter}${process.env.PATH ?? ''}`,
			},
		});
		n8n = await startN8n(folder);
		session = await setupOwner(n8n.url);
		browser = await launchBrowser();
		page = browser.page;
		steps = new Steps(page, 'community-nodes', [sandbox.apiKey]);
		await signIn(page, n8n.url);
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		folder?.remove();
		await registry?.close();
		await sandbox?.close();
		if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
	});

	const packageCard = () =>
		page.locator('[data-test-id="community-package-card"]').filter({ hasText: PACKAGE.name });
	const creator = () => page.locator('[data-test-id="node-creator"]');
	const ndv = () => page.locator('[data-test-id="ndv"]');

	async function openCommunityNodes(): Promise<void> {
		await page.goto(`${n8n.url}/settings/community-nodes`);
		await page.locator('[data-test-id="settings-community-nodes"]').waitFor();
	}

	/** Finds the node in a new workflow's nodes panel, with the description of the loaded version. */
	async function findTheNode(description: RegExp): Promise<void> {
		await page.goto(`${n8n.url}/workflow/new`);
		await page.locator('[data-test-id="node-creator-plus-button"]').click();
		await creator().locator('input').first().fill(NODE_NAME);
		await creator()
			.locator('[data-test-id="node-creator-item-name"]', { hasText: new RegExp(`^${NODE_NAME}$`) })
			.first()
			.click();
		// The node's details; later n8n versions also show the description in the search result.
		await creator().getByText(description).last().waitFor();
	}

	/** Adds Get many businesses from the open panel, runs it, and expects the sandbox's businesses. */
	async function runTheNode(): Promise<void> {
		await expandNodeCreatorCategory(page, 'Actions', ACTIONS.length);
		await creator()
			.locator('[data-test-id="item-iterator-item"]', { hasText: /^Get many businesses$/ })
			.click();
		await ndv().locator('[data-test-id="node-credentials-select"]').waitFor();
		await ndv().locator('[data-test-id="node-execute-button"]').click();
		const output = page.locator('[data-test-id="output-panel"]');
		const text = await waitForText(output, /\d+ items/, 60_000);
		expect(Number(/(\d+) items/.exec(text)?.[1])).toBe(sandbox.businesses.length);
		for (const business of sandbox.businesses) {
			await output.getByText(business.name).first().waitFor();
		}
	}

	it('installs the package: name with version, accept the risk, Install', async () => {
		await steps.run('install dialog', async () => {
			await openCommunityNodes();
			await page.getByRole('button', { name: 'Install a community node' }).click();
			const modal = page.locator('[data-test-id="communityPackageInstall-modal"]');
			await modal
				.locator(
					'input[data-test-id="package-name-input"], [data-test-id="package-name-input"] input',
				)
				.first()
				.fill(`${PACKAGE.name}@${PACKAGE.version}`);
			await modal.locator('[data-test-id="user-agreement-checkbox"]').click();
		});
		await steps.run('installed', async () => {
			const modal = page.locator('[data-test-id="communityPackageInstall-modal"]');
			await modal.getByRole('button', { name: 'Install' }).click();
			await modal.waitFor({ state: 'hidden', timeout: 180_000 });
			await packageCard().waitFor();
			await packageCard().getByText(`v${PACKAGE.version}`).waitFor();
			// n8n's own version check was answered by the local registry.
			expect(registry.proxied).toContain(
				`https://registry.npmjs.org/${PACKAGE.name}/${PACKAGE.version}`,
			);
		});
	});

	it('shows the node in the nodes panel without a restart, and it runs', async () => {
		// n8n is the process beforeAll started: nothing here restarts it.
		const { name, type, data } = sandboxCredential(sandbox);
		await rest(n8n.url, session, 'POST', '/credentials', { name, type, data });
		await steps.run('installed node in the nodes panel', async () => {
			await findTheNode(await shownDescription(false));
		});
		await steps.run('installed node runs', runTheNode);
	});

	it('updates to a newer version published to the registry, and the new version runs', async () => {
		await registry.publish(await packNextVersion(tarball, workDir));
		await steps.run('update offered', async () => {
			await openCommunityNodes();
			await packageCard().getByRole('button', { name: 'Update' }).waitFor();
		});
		await steps.run('updated', async () => {
			await packageCard().getByRole('button', { name: 'Update' }).click();
			await page.getByRole('button', { name: 'Confirm update' }).click();
			await packageCard().getByText(`v${NEXT_VERSION}`).waitFor({ timeout: 180_000 });
			await page.getByText('Update node package').waitFor({ state: 'hidden' });
			// The panel's Update asks for "latest", which only the local registry has.
			expect(registry.proxied).toContain(`https://registry.npmjs.org/${PACKAGE.name}/latest`);
		});
		await steps.run('updated node in the nodes panel', async () => {
			await findTheNode(await shownDescription(true));
		});
		await steps.run('updated node runs', runTheNode);
	});

	it('uninstalls the package, and the node is gone', async () => {
		await steps.run('uninstall', async () => {
			await openCommunityNodes();
			await packageCard().locator('[data-test-id="action-toggle"]').click();
			await page.getByText('Uninstall package').click();
			await page.getByRole('button', { name: 'Confirm uninstall' }).click();
			await packageCard().waitFor({ state: 'detached', timeout: 120_000 });
		});
		await steps.run('node gone', async () => {
			await page.goto(`${n8n.url}/workflow/new`);
			await page.locator('[data-test-id="node-creator-plus-button"]').click();
			await creator().locator('input').first().fill(NODE_NAME);
			await creator().getByText(NO_RESULTS).waitFor();
			expect(
				await creator()
					.locator('[data-test-id="node-creator-item-name"]', {
						hasText: new RegExp(`^${NODE_NAME}$`),
					})
					.count(),
			).toBe(0);
		});
	});
});
