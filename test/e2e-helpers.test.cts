import { existsSync, rmSync } from 'node:fs';
import { createUserFolder, type N8nInstall } from './e2e/n8n.cjs';

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
