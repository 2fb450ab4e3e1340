/**
 * `npm run check:tarball`: what `npm pack` would publish from this working tree, checked against
 * an exact list of what the package may hold. `n8n-node build` copies every .png/.svg of the
 * repository outside dot folders into dist/, so an image left anywhere (a test screenshot, a
 * coverage report) would be published; this fails on any such file, and on a size above the bound.
 *
 * Allowed, each derived from the tracked sources (git ls-files):
 * - the compiled nodes and credential: dist/<nodes|credentials>/**.{js,d.ts,js.map} of a tracked .ts;
 * - the icons: dist/icons/<name>.svg of a tracked icons/<name>.svg;
 * - the codex files: dist/nodes/**.node.json of a tracked nodes/**.node.json;
 * - the output schemas: dist/nodes/**\/__schema__/**.json of a tracked one under nodes/;
 * - package.json, README.md, LICENSE.md; and tsc's by-products of the build, dist/package.json
 *   (tsconfig.json includes package.json) and dist/tsconfig.tsbuildinfo.
 *
 * Usage: tsx test/scan/tarball.cts   (on a built tree; `npm run check:tarball` builds first)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The packed (gzip) size allowed: 133 kB today; the editor suite's screenshots made it 2.0 MB. */
export const MAX_PACKED_BYTES = 200_000;

export interface PackedFile {
	path: string;
	size: number;
}

export interface Pack {
	files: PackedFile[];
	size: number;
	entryCount: number;
}

/** Every path the tarball may hold, from the tracked source files. */
export function allowedPaths(tracked: string[]): Set<string> {
	const allowed = new Set([
		'package.json',
		'README.md',
		'LICENSE.md',
		'dist/package.json',
		'dist/tsconfig.tsbuildinfo',
	]);
	for (const file of tracked) {
		if (/^(nodes|credentials)\/.+(?<!\.d)\.ts$/.test(file)) {
			const stem = `dist/${file.replace(/\.ts$/, '')}`;
			for (const suffix of ['.js', '.d.ts', '.js.map']) allowed.add(stem + suffix);
		} else if (
			/^nodes\/.+\.node\.json$/.test(file) ||
			/^nodes\/.+\/__schema__\/.+\.json$/.test(file) ||
			/^icons\/[^/]+\.svg$/.test(file)
		) {
			allowed.add(`dist/${file}`);
		}
	}
	return allowed;
}

/** What is wrong with the tarball: files outside the list, entry points missing, the size. */
export function tarballProblems(pack: Pack, tracked: string[], entryPoints: string[]): string[] {
	const allowed = allowedPaths(tracked);
	const problems: string[] = [];
	const paths = new Set(pack.files.map((file) => file.path));
	for (const file of pack.files)
		if (!allowed.has(file.path))
			problems.push(`not part of the package: ${file.path} (${file.size} bytes)`);
	for (const entry of entryPoints)
		if (!paths.has(entry)) problems.push(`missing: ${entry} (named in package.json "n8n")`);
	if (pack.size > MAX_PACKED_BYTES)
		problems.push(`packed size ${pack.size} bytes is above the bound of ${MAX_PACKED_BYTES} bytes`);
	return problems;
}

function main(): number {
	const root = join(__dirname, '..', '..');
	const run = (command: string, args: string[]) =>
		execFileSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	const [pack] = JSON.parse(run('npm', ['pack', '--dry-run', '--json'])) as Pack[];
	const tracked = run('git', ['ls-files', '-z']).split('\0').filter(Boolean);
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const problems = tarballProblems(pack, tracked, [
		...manifest.n8n.nodes,
		...manifest.n8n.credentials,
	]);
	for (const problem of problems) console.log(`FAIL ${problem}`);
	console.log(
		`${problems.length === 0 ? 'pass' : 'FAIL'}: npm pack holds ${pack.entryCount} files, ` +
			`${pack.size} bytes packed (bound ${MAX_PACKED_BYTES})`,
	);
	return problems.length === 0 ? 0 : 1;
}

if (require.main === module) process.exitCode = main();
