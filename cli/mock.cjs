'use strict';
// The `mock` command as a file of its own: what `npm start` runs (`node cli/mock.cjs [options]`). Plain CommonJS, so
// that even a Node.js that cannot load TypeScript runs it and says which Node to use (entry.cjs). mock/src/main.ts is
// a link to this file, kept for whoever starts the mock by that path (tests, and `diff --behaviour`, which starts the
// mock of each git ref by it).
require('./entry.cjs')(['mock']);
