import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..');
const run = promisify(execFile);

/** `npm run scan`'s script on a folder: its exit code and what it printed. */
async function scan(dir: string): Promise<{ code: number; output: string }> {
	try {
		const { stdout } = await run(
			process.execPath,
			['--import', 'tsx', join(root, 'test/scan/scan-package.cts'), dir],
			{ cwd: root },
		);
		return { code: 0, output: stdout };
	} catch (error) {
		const failed = error as { code: number; stdout: string };
		return { code: failed.code, output: failed.stdout };
	}
}

describe("n8n's package scanner (npm run scan)", () => {
	let copy: string;
	afterAll(() => rmSync(copy, { recursive: true, force: true }));

	it('fails on a copy of the package with a console.log in a node file, in the source and in the tarball', async () => {
		copy = mkdtempSync(join(tmpdir(), 'business-crm-broken-'));
		for (const part of ['package.json', 'nodes', 'credentials', 'dist']) {
			cpSync(join(root, part), join(copy, part), { recursive: true });
		}
		appendFileSync(join(copy, 'nodes/BusinessCrm/BusinessCrm.node.ts'), "\nconsole.log('x');\n");
		appendFileSync(
			join(copy, 'dist/nodes/BusinessCrm/BusinessCrm.node.js'),
			"\nconsole.log('x');\n",
		);

		const { code, output } = await scan(copy);

		expect(code).toBe(1);
		expect(output).toMatch(/FAIL source .*ESLint violations found/);
		expect(output).toMatch(/FAIL npm pack tarball .*ESLint violations found/);
		expect(output.match(/no-console/g)).toHaveLength(2);
		expect(output).toContain('2 of 2 analyses have findings');
	});
});
