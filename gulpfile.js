// n8n-node build compiles TypeScript and copies the icons it finds. This task
// copies every other static asset n8n reads from dist/: the node's codex file
// (*.node.json), the icons and the output schemas (__schema__/**/*.json, read
// by the editor's schema preview), so dist/ is complete even if the CLI's copy
// step changes, and a stray asset never goes missing.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('icons/**/*.svg', { encoding: false }).pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

function copySchemas() {
	return src('nodes/**/__schema__/**/*.json').pipe(dest('dist/nodes'));
}

exports['build:assets'] = parallel(copyIcons, copyCodex, copySchemas);
