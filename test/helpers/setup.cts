// n8n-core writes its instance settings under the user folder; keep that out of ~/.n8n.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-business-crm-test-'));
