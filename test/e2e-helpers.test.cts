import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createUserFolder, DEFAULT_N8N_VERSION, type N8nInstall } from './e2e/n8n.cjs';
import { testedVersions } from './e2e/versions.cjs';

// createUserFolder needs no n8n; the install is only carried along.
const noInstall = {} as N8nInstall;

describe('the real-n8n suite helpers', () => {
	const saved = process.env.KEEP_N8N_E2E;
	afterEach(() => {
		if (saved === undefined) delete process.env.KEEP_N8N_E2E;
		else process.env.KEEP_N8N_E2E = saved;
	});

	it('remove() deletes the temporary user folder', async () => {
		delete process.env.KEEP_N8N_E2E;
		const folder = await createUserFolder(noInstall);
		expect(existsSync(folder.dir)).toBe(true);
		folder.remove();
		expect(existsSync(folder.dir)).toBe(false);
	});

	it('with KEEP_N8N_E2E=1, remove() keeps the folder so a failed run can be looked at', async () => {
		process.env.KEEP_N8N_E2E = '1';
		const folder = await createUserFolder(noInstall);
		const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
		try {
			folder.remove();
			expect(existsSync(folder.dir)).toBe(true);
			expect(stderr).toHaveBeenCalledWith(expect.stringContaining(folder.dir));
		} finally {
			stderr.mockRestore();
			rmSync(folder.dir, { recursive: true, force: true });
		}
	});
});

describe('the n8n versions npm run editor offers', () => {
	it("are those CI's real-n8n scripts run, each with its Node.js, and the default on this one", () => {
		const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
			scripts: Record<string, string>;
		};
		const versions = testedVersions(scripts, DEFAULT_N8N_VERSION);
		// The newest line CI tests (issue 48: the tool refused it while the README named it).
		const latest = /N8N_E2E_VERSION=(\S+) N8N_E2E_NODE=(\S+)/.exec(scripts['test:e2e:latest']);
		expect(latest).not.toBeNull();
		expect(versions[latest![1]]).toBe(latest![2]);
		expect(Object.keys(versions)).toContain(DEFAULT_N8N_VERSION);
		expect(versions[DEFAULT_N8N_VERSION]).toBeUndefined();
		// Every version a script tests, and nothing else.
		const inScripts = Object.values(scripts).flatMap(
			(script) => /N8N_E2E_VERSION=(\S+)/.exec(script)?.[1] ?? [],
		);
		expect(Object.keys(versions).sort()).toEqual([...new Set([DEFAULT_N8N_VERSION, ...inScripts])].sort());
	});
});
