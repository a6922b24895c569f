#!/usr/bin/env node
// `npm run proxy -- --target URL …`: the validation proxy's entry (main.ts does the work).
import { main } from './main.ts';

await main(process.argv.slice(2));
