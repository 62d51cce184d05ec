#!/usr/bin/env node
// The installed entry point: runs the compiled CLI (npm ci builds it through the prepare script).
import { runMain } from '../dist/main.js';

await runMain(process.argv.slice(2));
