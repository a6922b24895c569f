'use strict';
// The first code any entry point runs (mock.cjs, which npm start runs, and bin.cjs, the package's bin). Plain CommonJS,
// so that it runs on every Node.js, and an old one gets one sentence instead of a loader error: the repository's
// TypeScript sources need type stripping (Node.js 22.18+, 24 in .nvmrc); the compiled package runs on Node.js
// 20.19+, 22.12+ and 24+ (package.json engines); the contract command runs with the project's vitest, and where that
// is a vitest that refuses this Node.js (vitest 5 on Node.js 20), cli.ts says in one line what to run instead. The npm
// scripts always have Node 24: `npm ci` installs it (devDependency `node`) into node_modules/.bin, which npm puts first
// on PATH.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

module.exports = function run(prefix) {
  const compiled = existsSync(join(__dirname, 'cli.js'));
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const supported = compiled ? (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24 : (major === 22 && minor >= 18) || major >= 24;
  if (!supported) {
    process.stderr.write(
      compiled
        ? `error: service-external-api needs Node.js ^20.19.0 || ^22.12.0 || >=24 (package.json engines), and this is Node.js ${process.version}; install Node.js 24 LTS.\n`
        : `error: this is Node.js ${process.version}, and the repository's TypeScript sources need Node.js 24 (22.18+ also works): run them through npm (npm start, npm test), whose scripts use the Node 24 that npm ci installed into node_modules/.bin, or switch with \`nvm use\` (.nvmrc).\n`,
    );
    process.exit(1);
  }
  // Node's on-disk compile cache (NODE_COMPILE_CACHE, else a folder in the OS temp directory) for every module loaded
  // from here: a later start skips compiling the dependencies and stripping the TypeScript, which halves the cold start
  // and keeps the stripper out of memory. A cache that cannot be written is skipped by Node, never an error.
  require('node:module').enableCompileCache?.();
  import(compiled ? './cli.js' : './cli.ts')
    .then((cli) => cli.main([...prefix, ...process.argv.slice(2)]))
    .catch((error) => {
      process.stderr.write(`${error instanceof Error && error.stack ? error.stack : String(error)}\n`);
      process.exit(1);
    });
};
