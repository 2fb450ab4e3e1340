/**
 * `npm run scan`: n8n's own verification scanner (@n8n/scan-community-package), run offline.
 *
 * n8n verifies a published package in three steps: provenance, then its `analyzePackage` on the
 * source the provenance points at (package.json, nodes/, credentials/) and on the tarball's
 * compiled .js and package.json, with the n8n Cloud lint rules. Provenance and the downloads need
 * a published version; the two analyses do not, so this runs exactly those on this checkout and on
 * the unpacked `npm pack` tarball of it. Any finding fails (exit 1).
 *
 * Usage: tsx test/scan/scan-package.cts [package folder]   (default: this repository; it must be built)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The same file patterns n8n's analyzePackageByName gives the tarball leg. */
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

function packAndUnpack(packageDir: string): { dir: string; cleanup: () => void } {
	const work = mkdtempSync(join(tmpdir(), 'business-crm-scan-'));
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: packageDir,
			encoding: 'utf8',
		}),
	) as Array<{ filename: string }>;
	execFileSync('tar', ['-xzf', join(work, packed[0].filename), '-C', work]);
	// npm pack puts the package under package/, as the registry serves it.
	return {
		dir: join(work, 'package'),
		cleanup: () => rmSync(work, { recursive: true, force: true }),
	};
}

async function main(): Promise<number> {
	const packageDir = resolve(process.argv[2] ?? join(__dirname, '..', '..'));
	// The scanner is an ES module; tsx lets this CommonJS script import it.
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');

	const tarball = packAndUnpack(packageDir);
	try {
		const legs: Array<[string, string, string[]]> = [
			['source (package.json, nodes/, credentials/)', packageDir, scanner.SOURCE_FILE_PATTERNS],
			['npm pack tarball (compiled .js, package.json)', tarball.dir, TARBALL_PATTERNS],
		];
		let failed = 0;
		for (const [label, dir, patterns] of legs) {
			const result = await scanner.analyzePackage(dir, patterns);
			if (result.message === 'No files found to analyze') {
				// A leg that saw nothing proves nothing.
				console.log(`FAIL ${label}: no files found to analyze in ${dir}`);
				failed++;
			} else if (result.passed) {
				console.log(`pass ${label}`);
			} else {
				console.log(`FAIL ${label}: ${result.message ?? 'findings'}`);
				if (result.details) console.log(result.details);
				failed++;
			}
		}
		console.log(
			failed === 0
				? 'n8n package scan: no findings'
				: `n8n package scan: ${failed} of ${legs.length} analyses have findings`,
		);
		return failed === 0 ? 0 : 1;
	} finally {
		tarball.cleanup();
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
