// `node --import ./module-trace.mjs …`: the process prints each module it loads through the ESM loader
// (its own files, its dependencies' entries, node: built-ins) to stderr as "module-trace: URL"
// (test/cli/start-up.test.ts). The hooks run in their own thread, from module-trace-hooks.mjs.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url);
