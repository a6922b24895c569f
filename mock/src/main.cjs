'use strict';
// `npm start` runs mock/src/main.ts, a link to this file: the `mock` command. A link to CommonJS, so that even a Node.js
// that cannot load TypeScript runs it and says which Node to use (entry.cjs).
require('./entry.cjs')(['mock']);
