// Runs before every npm script (package.json pre-scripts) on any Node.js, so that an old Node fails with a clear
// sentence instead of ERR_UNKNOWN_FILE_EXTENSION: the project runs its TypeScript directly (type stripping).
'use strict';
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18) || major === 23) {
  process.stderr.write(
    `error: this project needs Node.js 24 (see .nvmrc; 22.18+ also works), and this is Node.js ${process.version}. ` +
      'Switch with `nvm use`, or install one next to the project: `npm install --prefix .ci/node node@24` and put ' +
      '.ci/node/node_modules/.bin first on PATH (that is what .ci/run does).\n',
  );
  process.exit(1);
}
