/**
 * The release tarball holds only the package. `n8n-node build` copies every .png/.svg it finds
 * (fast-glob `**\/*.{png,svg}`, ignoring dist and node_modules, dot folders not searched) into
 * dist/, and `files: ["dist"]` publishes them: test artefacts must stay where it does not look,
 * and test/scan/tarball.cts (CI's `npm run check:tarball`) fails on anything else in the tarball.
 */
import fg from 'fast-glob';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { SCREENSHOT_ROOT } from '../editor/browser.cjs';
import { OUTPUT_SCHEMAS, SCHEMA_FOLDER } from '../helpers/output-schemas.cjs';
import { MAX_PACKED_BYTES, tarballProblems, type Pack } from '../scan/tarball.cjs';

const ROOT = path.join(__dirname, '..', '..');

/** What n8n-node build (@n8n/node-cli 0.48.3, commands/build.js copyStaticFiles) would copy. */
function copiedByBuild(): string[] {
	return fg.sync(['**/*.{png,svg}', '**/__schema__/**/*.json'], {
		cwd: ROOT,
		ignore: ['dist', 'node_modules'],
	});
}

function withImage(dir: string, run: (relative: string) => void) {
	fs.mkdirSync(dir, { recursive: true });
	const folder = fs.mkdtempSync(path.join(dir, 'probe-'));
	try {
		fs.writeFileSync(path.join(folder, 'step.png'), '');
		run(path.relative(ROOT, path.join(folder, 'step.png')).split(path.sep).join('/'));
	} finally {
		fs.rmSync(folder, { recursive: true, force: true });
	}
}

const TRACKED = [
	'package.json',
	'credentials/BusinessCrmApi.credentials.ts',
	'nodes/BusinessCrm/BusinessCrm.node.ts',
	'nodes/BusinessCrm/BusinessCrm.node.json',
	'nodes/BusinessCrm/__schema__/v1.0.0/customer/create.json',
	'icons/businessCrm.svg',
	'test/editor/browser.cts',
];
const ENTRY_POINTS = [
	'dist/nodes/BusinessCrm/BusinessCrm.node.js',
	'dist/credentials/BusinessCrmApi.credentials.js',
];
const packOf = (paths: string[], size = 1_000): Pack => ({
	files: paths.map((p) => ({ path: p, size: 10 })),
	size,
	entryCount: paths.length,
});
const PACKAGE = [
	'package.json',
	'README.md',
	'LICENSE.md',
	'dist/package.json',
	'dist/nodes/BusinessCrm/BusinessCrm.node.js',
	'dist/nodes/BusinessCrm/BusinessCrm.node.d.ts',
	'dist/nodes/BusinessCrm/BusinessCrm.node.js.map',
	'dist/nodes/BusinessCrm/BusinessCrm.node.json',
	'dist/nodes/BusinessCrm/__schema__/v1.0.0/customer/create.json',
	'dist/credentials/BusinessCrmApi.credentials.js',
	'dist/icons/businessCrm.svg',
];

describe('the release tarball holds only the package', () => {
	it("the editor suite's screenshots are where the build copies no images from", () => {
		withImage(path.join(SCREENSHOT_ROOT, 'journey'), (image) => {
			expect(copiedByBuild()).not.toContain(image);
		});
	});

	it("the coverage report's images are where the build copies no images from", () => {
		const { coverageDirectory } = jest.requireActual<{ coverageDirectory: string }>(
			'../../jest.config.js',
		);
		withImage(path.join(coverageDirectory.replace('<rootDir>', ROOT), 'lcov-report'), (image) => {
			expect(copiedByBuild()).not.toContain(image);
		});
	});

	it("the build copies no image but the icons, and no JSON but the node's output schemas", () => {
		const schemas = Object.entries(OUTPUT_SCHEMAS).flatMap(([resource, byOperation]) =>
			Object.keys(byOperation).map(
				(operation) => `nodes/BusinessCrm/${SCHEMA_FOLDER}/${resource}/${operation}.json`,
			),
		);
		expect(
			copiedByBuild()
				.filter((file) => !file.startsWith('icons/'))
				.sort(),
		).toEqual(schemas.sort());
	});

	it('the package itself passes the check', () => {
		expect(tarballProblems(packOf(PACKAGE), TRACKED, ENTRY_POINTS)).toEqual([]);
	});

	it('a screenshot in the tarball fails the check', () => {
		const stray = 'dist/test/editor/screenshots/journey/01-nodes-panel.png';
		expect(tarballProblems(packOf([...PACKAGE, stray]), TRACKED, ENTRY_POINTS)).toEqual([
			`not part of the package: ${stray} (10 bytes)`,
		]);
	});

	it('an output schema with no tracked source fails the check', () => {
		const stray = 'dist/nodes/BusinessCrm/__schema__/v1.0.0/customer/delete.json';
		expect(tarballProblems(packOf([...PACKAGE, stray]), TRACKED, ENTRY_POINTS)).toEqual([
			`not part of the package: ${stray} (10 bytes)`,
		]);
	});

	it('a compiled file with no tracked source fails the check', () => {
		const stray = 'dist/nodes/BusinessCrm/leftover.js';
		expect(tarballProblems(packOf([...PACKAGE, stray]), TRACKED, ENTRY_POINTS)).toHaveLength(1);
	});

	it('a missing node fails the check', () => {
		const withoutNode = PACKAGE.filter(
			(file) => file !== 'dist/nodes/BusinessCrm/BusinessCrm.node.js',
		);
		expect(tarballProblems(packOf(withoutNode), TRACKED, ENTRY_POINTS)).toEqual([
			'missing: dist/nodes/BusinessCrm/BusinessCrm.node.js (named in package.json "n8n")',
		]);
	});

	it('a tarball above the size bound fails the check', () => {
		expect(tarballProblems(packOf(PACKAGE, MAX_PACKED_BYTES + 1), TRACKED, ENTRY_POINTS)).toEqual([
			`packed size ${MAX_PACKED_BYTES + 1} bytes is above the bound of ${MAX_PACKED_BYTES} bytes`,
		]);
	});
});
