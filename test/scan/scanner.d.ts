// n8n's scanner ships plain ES modules without type declarations; these are the parts we call.
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export interface ScanResult {
		passed: boolean;
		message?: string;
		details?: string;
	}
	export function analyzePackage(dir: string, patterns: string[]): Promise<ScanResult>;
	export const SOURCE_FILE_PATTERNS: string[];
}
