// Writes docs/configuration.md from the configuration's schema and catalogue (src/config/docs.ts),
// as built in dist/ (npm run docs:config builds it first).
import fs from 'node:fs';
import path from 'node:path';
import { envSchema } from '../dist/config/index.js';
import { renderConfigurationDoc } from '../dist/config/docs.js';

const page = path.join(import.meta.dirname, '..', 'docs', 'configuration.md');
fs.writeFileSync(page, renderConfigurationDoc(envSchema.shape));
console.log(`wrote ${path.relative(process.cwd(), page)}`);
