#!/usr/bin/env node
'use strict';
// The package's bin, `service-external-api <command>` (cli/cli.ts), after the Node.js check of entry.cjs.
require('./entry.cjs')([]);
