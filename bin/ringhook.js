#!/usr/bin/env node
// The installed entry point: runs the CLI bundled from the compiled sources (npm ci builds it through
// the prepare script; scripts/bundle-cli.mjs says why a bundle).
import { runMain } from '../dist/bundle/main.js';

await runMain(process.argv.slice(2));
