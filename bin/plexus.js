#!/usr/bin/env node
// The `plexus` command. Runs the compiled CLI; `npm run build` produces dist/.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
