'use strict';
// `npm start` runs cli/main.ts, a link to this file: the `mock` command (mock/src/main.ts links here too, for whoever
// ran the mock by that path before the command line had a folder of its own). A link to CommonJS, so that even a
// Node.js that cannot load TypeScript runs it and says which Node to use (entry.cjs).
require('./entry.cjs')(['mock']);
