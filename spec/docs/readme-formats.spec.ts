import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_FORMAT_VERSION } from '../../storage/events/codec.js';
import { BLOCK, FORMAT_VERSION } from '../../storage/export/format.js';
import { SNAPSHOT_FORMAT_VERSION } from '../../storage/snapshot/snapshot-codec.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');

/** The README's grammar of the export file: the fenced block right after the format's heading. */
function grammar(): string {
  const section = readme.slice(readme.indexOf('## Export file format'));
  return section.slice(section.indexOf('```\n') + 4, section.indexOf('\n```', section.indexOf('```\n') + 4));
}

describe('README describes the formats the code writes', () => {
  it('names the export format version in its heading, the table of contents, the export header and the grammar', () => {
    expect(readme).to.include(`## Export file format (version ${FORMAT_VERSION})\n`);
    expect(readme).to.include(`(#export-file-format-version-${FORMAT_VERSION})`);
    expect(readme).to.include(`X-Service-Format-Version: ${FORMAT_VERSION}\``);
    expect(grammar()).to.include(`u16 version (${FORMAT_VERSION})`);
  });

  it('lists every block type the writer uses, with its type code, and the header fields of the current version', () => {
    for (const [name, code] of Object.entries(BLOCK)) expect(grammar(), name).to.match(new RegExp(`^${name.toUpperCase()}\\s+\\(type ${code}\\b`, 'm'));
    expect(grammar()).to.include('f64 point count | f64 edge count\n            | f64 operation_id | str settings JSON');
  });

  it('names the log entry and snapshot format versions', () => {
    expect(readme.split(`format version (${EVENT_FORMAT_VERSION}`).length - 1, 'How it works and the format section').to.equal(2);
    expect(readme).to.include(`Snapshot format ${SNAPSHOT_FORMAT_VERSION}\n`);
  });
});
