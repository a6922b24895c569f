// The "Changes" section of the reference page, from CHANGELOG.md (written by `npm run release`): per released
// version, newest first, the changes by level (Breaking, May break, Safe), as Markdown for the document's
// introduction, which Redoc renders as a section of its own with an entry in the sidebar.
import { readFileSync } from 'node:fs';

const CHANGELOG = new URL('../CHANGELOG.md', import.meta.url);

/** The versions of a changelog (`## <version> - <date>`, then `### <level>` lists), newest first as written. */
function releasesOf(text: string): Array<{ version: string; date: string; levels: Array<{ level: string; items: string[] }> }> {
  const releases: Array<{ version: string; date: string; levels: Array<{ level: string; items: string[] }> }> = [];
  for (const line of text.split('\n')) {
    const release = /^## (\S+) - (\d{4}-\d{2}-\d{2})\s*$/.exec(line);
    if (release) {
      releases.push({ version: release[1] ?? '', date: release[2] ?? '', levels: [] });
      continue;
    }
    const current = releases.at(-1);
    const level = /^### (.+?)\s*$/.exec(line);
    if (current && level) current.levels.push({ level: level[1] ?? '', items: [] });
    else if (current && /^- /.test(line)) current.levels.at(-1)?.items.push(line.slice(2));
    else if (current && /^ {2}\S/.test(line)) {
      const items = current.levels.at(-1)?.items;
      if (items && items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
    }
  }
  return releases;
}

/** The section, as Markdown. */
export function changesSection(text: string = readFileSync(CHANGELOG, 'utf8')): string {
  const releases = releasesOf(text);
  if (releases.length === 0) throw new Error('CHANGELOG.md has no released version (## <version> - <date>)');
  const lines = [
    '## Changes',
    '',
    'Every released version of this contract, newest first: **Breaking** changes break a client written against the version before, **May break** ones can, **Safe** ones do not (`service-external-api diff` grades them).',
  ];
  for (const release of releases) {
    lines.push('', `### ${release.version} (${release.date})`);
    for (const { level, items } of release.levels) lines.push('', `**${level}**`, '', ...items.map((item) => `- ${item}`));
  }
  return lines.join('\n');
}
